// Package validator compares the answer a live target gave with the one on
// the tape and says what differs.
//
// Compare takes two whole JSON-RPC messages. The top-level "id" and
// "jsonrpc" members are never compared (ids are remapped during a replay).
// Everything else is compared structurally: object member order does not
// matter, numbers are equal when their values are (1 == 1.0 == 10e-1,
// exactly, also for integers too big for a float64), strings are equal when
// they decode to the same text, and arrays are compared index by index.
//
// Most answers match their recording byte for byte outside the id, so
// Compare first compares the raw bytes of the top-level members other than
// "id" and "jsonrpc" (wherever those two sit) and returns nil without
// decoding or allocating when they are identical. That fast path trusts
// the grammar of what it compares: identical bytes are equal, whether or
// not they are well-formed JSON. Only when something differs are both
// sides checked with json.Valid and walked.
//
// # Paths
//
// A Difference names where it is with a path: `result.content[0].text`.
// Members whose names are not plain (letters, digits, '_' and '-') are
// written as quoted JSON strings in brackets: `result["a.b"]`. The root is
// `$`.
//
// Ignore patterns (WithIgnore) use the same syntax plus wildcards: `*`
// matches one member name, `[*]` any array index, `**` any run of zero or
// more segments (names or indices). A leading `$.` is accepted and
// ignored. A pattern ignores the whole subtree it matches: "error.data",
// "result.content[*].annotations", "**.timestamp".
//
// # Order and limits
//
// Differences come in path order, segment by segment: member names
// bytewise, array indices numerically ([2] before [10]); the same inputs
// always give the same list. At most MaxDifferences are listed; when there
// are more, one last Difference of kind DiffTruncated, with an empty Path,
// carries the number left out as its Actual value (a JSON number).
//
// A Validator holds no mutable state and is safe for concurrent use.
package validator
