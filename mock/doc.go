// Package mock serves a tape as an MCP server: each request is answered
// with the answer recorded for the same method and params, in recorded
// order, its id rewritten to the caller's.
//
// The mock reads its tape as a stream, next to the replay, so its memory
// does not grow with the tape: it keeps only the recorded requests it has
// read ahead and not yet matched.
package mock
