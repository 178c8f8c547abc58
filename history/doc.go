// Package history keeps every replay's report in a run store and answers
// questions across runs: the runs of a tape, the trend of a metric, the
// messages whose verdict flips (flaky), whether a method's latency
// distribution changed between runs, and whether a new run regressed
// against the last ones of its tape.
//
// The store is one SQLite file (history.db) in a folder the caller names,
// written through a pure Go driver (no C toolchain). It is safe for
// concurrent writers, in one process or many (parallel CI jobs): the file
// is in WAL mode, every write is one immediate transaction, and a writer
// waits up to the busy timeout for another. Its schema is versioned
// (SQLite's user_version) and migrated forward when opened.
//
// Per run it keeps when it ran, the tape (its content hash and name), the
// target, the version under test, the options, the report without its
// per-message lists (so any metric a threshold names can be read back),
// each message's verdict and differences, and each method's and name's
// latency histogram as the report encodes it (lossless HDR).
//
// Decisions are plain functions over values: [FlakyOf] over verdict
// observations, [KS] and [MannWhitney] over histograms, [Regressed] over
// a value and its baseline. The [Store] methods load the values and call
// them.
package history
