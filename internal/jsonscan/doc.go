// Package jsonscan walks the top level of a JSON object without decoding it.
//
// It is the shared fast path of the tape reader and the jsonrpc view: both
// need a handful of top-level members of small objects, and the raw bytes of
// everything else, many times per message. Members finds member boundaries
// only; callers that must know a document is well formed call json.Valid
// first (or after), once.
package jsonscan
