// Package engine wires the replay: load → transform → route → session
// actors → validate. Each stage is one goroutine passing items
// over channels, supervised by an errgroup; each replayed session (each
// recorded session, and each virtual copy of one) is an actor of package
// session: one goroutine that owns the session's connection, its requests
// in flight and their deadlines, its retries and reconnects, and its
// clock. The engine gives every actor the same read-only session.Env and
// takes what it reports through a session.Sink (sessions.go): outcomes
// for validate, the items it holds, counters, its end.
//
// The router never blocks on a target: it puts each item in its session's
// mailbox, which never waits, and starts an actor at a session's first
// client message. How far the loader reads ahead is bounded by a count of
// the items the sessions hold (Engine.release). A session ends when its
// last recorded message is done (the tape is scanned beside the replay for
// each session's last seq), so that memory and connections follow the
// sessions alive at once.
//
// Timing: every session paces its own messages, at every speed, in run
// and in debug alike (session/clock.go). At realtime and Nx by its own clock,
// anchored when its connection is ready and again when its live handshake
// completes (see package scheduler, "A clock per session"); at fixed and
// rps by the tickets all sessions share (scheduler.Shared), so that the
// rate is the replay's. Once due, a message passes the gate (gate.go), if
// there is one: a controller's (Attach), or at stepped one value of
// Config.Step per message; while the gate holds it, or the controller has
// the replay paused, replay time stands still for every session. A
// message's lateness is split into lag (the replayer late) and held (the
// session waited for an answer the order rule needs, or for the in-flight
// limit).
//
// Every write to a target, every dial and every request is bounded by
// Config.Timeout.
//
// Events: everything a session does is also an event of package event,
// emitted where it happens (the actor: dialled, anchored, held, due, sent,
// answered, fault, retry, reconnect, session ended; validate: judged; Run:
// run ended), stamped in microseconds since the run's start and fanned
// out once (events.go). The stream always runs: its first consumer is the
// report's collector, which reads each judged event's result; then a
// controller's watchers, then Config.Events.
//
// Every item carries the epoch it was loaded in. A seek bumps the engine's
// epoch; each stage and actor drops items of an older epoch, so nothing
// stale reaches the target after a seek.
//
// An actor pairs each answer with the recorded one, and holds its session
// as the recorded client waited (see package session).
package engine
