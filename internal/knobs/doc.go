// Package knobs is the one table of replayctl's knobs: each setting a
// person turns (a limit, a pace, a policy) with its flag name, the
// commands that take the flag, its config file key, its library options,
// its default and a one-line doc.
//
// The CLI registers the flags from it (their default and usage text), and
// package replay takes its defaults from it. A test in cmd/replayctl
// (TestFlagKnobs…) holds the rest to it: every flag of every command that
// has a knob's name, every key of config.File, every option of package
// replay, the doc comments of the library options (read with go/parser),
// the config example and README's Commands section. Where a command, key
// or option differs from the rule on purpose, the table says so with a
// reason (Variant, Renamed, ConfigOnly, OptionOnly); nothing is skipped
// silently.
//
// To add a knob: add a Knob to Table, register its flag with the CLI's
// addKnob, add its config key to config.File and its option to the
// library; the test says what is missing.
package knobs
