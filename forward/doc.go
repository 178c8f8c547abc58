// Package forward is the forwarding half of `replayctl serve --mode
// new`: a Forwarder is a mock.MissHandler that sends the requests a tape
// has no answer for to the real server (the upstream), relays its answer
// and what it says while answering to the client, and records each
// exchange through a record.Tap, as a tape session of its own that
// replays alone (the client's handshake first).
//
// The CLI gives the Tap a journal next to the tape, appended line by
// line, and merges it into the tape when serve stops (or, after a crash,
// when serve next starts).
package forward
