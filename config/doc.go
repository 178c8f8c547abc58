// Package config reads replay configuration files (--config replay.yaml):
// the keys of DESIGN.md's config section, decoded strictly. It is data
// only; the CLI maps it onto engine.Config, and package replay translates
// its sections into the transformer, validator and chaos packages' own
// types (they never import config).
//
// Load reads a file and Parse decodes bytes. Both decode into a yaml.Node
// tree first and walk it against File's types, so that every problem is an
// *Error naming the file, the line and the key path, and saying what to
// write instead:
//
//	replay.yaml line 12: unknown key "validaton" (did you mean "validation"?)
//	replay.yaml line 7: validation.tolerance.numeric: want a number, got "lots"
//	replay.yaml line 4: transformations[0].condition.seq_range: from 20 is after to 10; want [from, to] ascending
//
// An unknown key suggests the closest known one, or the section where that
// key belongs. Beyond types, Parse checks values: enums (validation.mode,
// rules[].mode, on_failure, error_handling.strategy, condition.kind,
// normalize, fault names) with their allowed values; speed with
// scheduler.Parse; a when: expression with match.ParseExpr; seq_range as
// two ascending seqs; a transformation needs a condition and an action
// that does something, drop alone; regular expressions compile; durations,
// counts and tolerances are not negative; probabilities lie in [0, 1] and
// add up to at most 1; thresholds have the shape metric, comparison,
// value. Parse stops at the first problem, in file order.
//
// An empty file, or one of comments only, is an empty config. Aliases and
// merge keys (<<: *base) work; a file that expands to more than 100,000
// values is refused. A key given twice, or a second YAML document, is an
// error.
//
// Example returns a commented file that sets every key; `replayctl config
// example` prints it and `replayctl config check FILE` checks a file.
//
// Fuzzing: go test ./config -run '^$' -fuzz FuzzParse -fuzzminimizetime 1x
// (minimising a large input with the example's expression in it is slow).
package config
