// Package config reads replay configuration files (--config replay.yaml):
// the keys of DESIGN.md's config section, decoded strictly (an unknown key
// or a wrong type is an error naming the file, line and key). It is data
// only; the CLI maps it onto engine.Config, and the transformer and
// validator compile its rules.
package config
