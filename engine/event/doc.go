// Package event is the replay's event stream: a typed, timestamped record
// of everything a replay does (a session dialled, a message due, sent,
// held, answered, judged, a fault injected, a retry, a reconnect, a
// session's end, the run's end), and the one fan-out that hands it to
// every consumer.
//
// The engine emits an [Event] where the thing happens: the session's own
// goroutine for what a session does, the validate stage for a verdict.
// Each event is stamped with the monotonic clock, in microseconds since
// the run's start ([Event.TUS]). A [Stream] gives every event to each of
// its consumers, in the order they were emitted; one session's events,
// and one request's due, sent, answered and judged, are in the order they
// happened.
//
// A consumer is one of two kinds ([Consumer.Live]):
//
//   - Lossless (a file): it sees every event. It has a buffer
//     of its own; while the buffer has room, emitting never waits. When it
//     is full, the goroutine that emits waits for room: a consumer slower
//     than the replay slows the replay down, it never loses an event. Each
//     such wait is counted ([Stat.Stalls], [Stat.Stalled]) and reported
//     at once ([WithBehind]). Other consumers are not held up by a full
//     buffer beyond what the waiting emitter would have sent them next.
//     After the run is abandoned ([Stream.Abandon]: interrupted), a full
//     buffer loses events (counted) instead of waiting.
//   - Live (a progress line, a browser view): it may lose events. When its
//     buffer is full the oldest event is dropped for the newest and the
//     loss counted ([Stat.Lost]); emitting never waits for it, so a slow
//     viewer never slows the replay.
//
// The engine's first consumer is the report's collector: lossless and
// Kept (Abandon does not touch it), for judged events only ([Consumer.Types]),
// so that every verdict is in the report; it reads each verdict's
// [Event.Result]. A controller's watchers, the progress line and the
// debugger are consumers too: the stream is the one way a verdict leaves
// the engine, beside the Go hooks.
//
// A consumer is handed its events in batches: when an eighth of its
// buffer is waiting, or after [FlushEvery] (one goroutine wake-up per
// batch, not per event).
//
// A consumer whose Handle returns an error sees no more events; its
// events are dropped from then on, and [Stream.Close] returns the error.
//
// JSONLines writes events as JSON Lines, one event a line, the shape
// `replayctl run --out json=FILE` writes.
package event
