// Package jsonscan walks JSON without decoding it: the one JSON scanner of
// the module.
//
// It is the shared fast path of the tape reader and the jsonrpc view: both
// need a handful of top-level members of small objects, and the raw bytes of
// everything else, many times per message. Members, SkipValue and SkipSpace
// find boundaries only; callers that must know a document is well formed
// call Valid (encoding/json.Valid's answer, faster) first or after, once.
package jsonscan
