// Package jsonscan walks JSON without decoding it: the one JSON scanner of
// the module.
//
// It is the shared fast path of the tape reader and the jsonrpc view: both
// need a handful of top-level members of small objects, and the raw bytes of
// everything else, many times per message. Members, SkipValue and SkipSpace
// find boundaries only; callers that must know a document is well formed
// call Valid (encoding/json.Valid's answer, faster) first or after, once,
// or MembersValid (MembersValidAt), which finds the members and checks the
// grammar in one pass; MembersSkip lets a caller read one member's value
// (the tape reader parses a line's message) in the pass that finds it.
// KeyEnd and ValueEnd are MembersValidAt's two halves, for a caller that
// walks an object's members itself (jsonrpc's strict parse, which
// recognises the names it wants where it meets them).
package jsonscan
