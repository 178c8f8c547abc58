// Package shrink finds the cause of a failing replay: it replays a tape
// (and the chaos faults of a failed run) many times, in process, each
// time with less of it, and returns the smallest tape and fault list
// that still fail the same way. `replayctl shrink` is a thin layer over
// it.
//
//	res, err := shrink.Shrink(ctx, tape.File("failing.jsonl"),
//		shrink.Replay(replay.Against(replay.Command("node", "server.js"))))
//	if err != nil {
//		return err
//	}
//	err = res.WriteTape("minimal.jsonl")
//
// # Units
//
// The shrinker keeps or drops what the protocol needs together (Group):
// a request and its answer, a server request and the client's answer,
// an MRTR round chain, a task and its polls, a request and its
// cancellation or its progress notifications. A session's handshake stays as long as the session does.
// Messages keep their recorded seq, so that the faults (placed by session
// and seq) and the failure still name the same messages.
//
// # The oracle
//
// A candidate keeps the failure when a replay of it fails the same way
// as the whole tape did (Failure.Same): the same kind — a difference at
// the same path, a crash of the target, a timeout, a protocol error — at
// the same message; not any failure. The failure aimed at is the one
// the most baseline runs showed, and of those the first in tape order
// (or the one At names). For a flaky failure, the baseline
// (Baseline runs of the whole tape) gives its rate, and each candidate
// is replayed up to n times and kept when k of them fail (Runs, Need).
//
// # Strategy
//
// Sessions first (the failing session alone, then delta debugging over
// sessions), then chunks of units (ddmin to complements), then single
// units from the back, then faults, then the parameters of the client
// messages left (a member or array item dropped, a string halved), one
// step at a time while the failure holds; round after round until a
// round changes nothing, so the result is 1-minimal. Tries of a batch
// run Parallel at once, each against a target of its own (a command
// target starts its processes per replay); a target that keeps state
// between runs needs a Reset hook, and then runs one at a time. Last,
// the result is replayed Proof times.
package shrink
