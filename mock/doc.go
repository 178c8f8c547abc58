// Package mock serves a tape as an MCP server: each request is answered
// with the answer recorded for the same method and params, in recorded
// order, its id rewritten to the caller's. A recorded request whose params
// a redaction left a marker in ([redacted:…], see tape.Redactor) matches
// any params of its method: its recorded value is gone.
//
// The mock reads its tape once, on the first Dial, into an index of each
// recorded session's requests paired with their answers; every connection,
// and every virtual copy of a session, answers from that one index with
// only a cursor of its own. Its memory grows with the tape's requests, not
// with the number of sessions: a request costs about 32 bytes (its method,
// a hash of its params); the answers and server notifications of a large
// native tape are read back from the file when asked for, those of a small
// or imported tape are kept in memory.
package mock
