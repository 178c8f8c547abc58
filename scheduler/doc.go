// Package scheduler is the timing of a replay: speed strategies, due times
// and lag accounting.
//
// # Layers
//
// Speed is a strategy as users write it (Parse, String): realtime, Nx, fast,
// stepped, fixed:<duration>, rps:<N>.
//
// Clock is the pure schedule, after tsenart/vegeta's pacers: a value that
// maps an item (recorded offset, index) to its due time, with no clock and no
// goroutines, so every rule is table-tested. The due time always counts from a
// fixed base, never from the previous item: start + offset÷factor for
// realtime and Nx, start + index×interval for fixed, start + index÷rps for
// rps. Sleeping "the gap since the last message" would add every timer's
// oversleep to every later message; counting from the base does not drift.
//
// Shared is what the sessions of a replay share: the tickets of the speeds
// that pace by count, and replay time, which a pause or a gate stops for
// every session. Its rules are methods on a value, table-tested too.
//
// Pacer wraps a Clock with real timers for one goroutine that paces a
// single stream of items by itself (the engine does not: each of its
// sessions paces itself, see below).
//
// # A clock per session
//
// In a replay, each session keeps its own Clock (package engine gives
// every session an actor of its own); the rule is:
//
//   - A session's clock starts when the session can talk. It connects at its
//     recorded start (its first message's offset from the tape's first
//     message, ÷ the speed; --ramp shifts virtual copies), and its first
//     message (the handshake) is due as soon as the connection is ready.
//   - When the live handshake completes (the answer to initialize arrives),
//     the clock is anchored again: the recorded answer's offset is due at the
//     live answer's arrival. The next message goes out at its recorded gap
//     after the recorded answer, and every later one at
//     anchor + (its offset − the answer's offset) ÷ speed. A session of the
//     stateless revision has no handshake: its clock starts when the
//     connection is ready.
//   - Due times always count from the anchor (Clock.Rebased); the time a
//     target takes to start, or to answer the handshake, is never replayed as
//     a burst of the messages that fell due meanwhile.
//
// At speeds that pace by count (fixed, rps) every session takes the next
// of the tickets all sessions share (Shared.Take) when it falls due, so
// that the rate is the replay's, not each session's; Fast and Stepped do
// not wait. Speed.ByTime tells the two apart. Controlled replays (a
// debugger) pace the same way: the controller's gate comes after the due
// time, and while it holds a message, or the replay is paused, replay time
// stands still for every session (Shared.Hold, Shared.Pause).
//
// # Behind schedule
//
// An item whose due time has passed is released at once; its lag
// (released − due) is in its Timing and in Stats. Later items keep their own
// due times, so a stall is caught up as fast as the pipeline allows: the
// open model load testers expect, with no coordinated omission.
//
// # Rate and golang.org/x/time/rate
//
// rps:<N> is the open model too: item i is due at base + i/N and a late item
// does not push later ones back. A rate.Limiter does not fit that: its burst
// caps how far it catches up (a burst of 1 spreads a backlog out, silently
// lowering the rate after a stall, which is coordinated omission), it has no
// notion of an item's intended time for lag accounting, and it cannot re-base
// for a pause or a speed change. So the Pacer computes due times itself, and
// x/time/rate serves where it does fit: Speed.Limit gives the rate as a
// rate.Limit (rate.Every for fixed:), for callers that throttle elsewhere.
//
// # Speed changes and pauses
//
// A speed change re-bases the clock on the next item (Clock.WithSpeed says
// where that item lands); later items follow the new speed from it. A pause
// stops replay time: on resume every due time moves by the pause's length
// (Clock.Shifted), as if no time had passed. Pausing and stepping users see
// are the controller's gate, downstream; the Pacer's pause keeps the schedule
// from counting the paused time as lag. In Stepped mode the Pacer never holds
// an item.
//
// Concurrency: a Pacer has one owner. Other goroutines change its speed or
// pause it by sending on the channels given with WithControl and
// WithPauseControl; the owner reads them whenever it blocks in Wait.
//
// # Precision
//
// Go timers can fire up to about 1ms late (measured: a plain timer gave a
// median lag near 0.5ms at 10x). Wait sleeps on a timer until DefaultSpin
// (1ms) before the due time and yields in a loop for the rest; WithSpin
// changes or disables that. Under a fake clock (testing/synctest) the spin
// notices that time stands still and sleeps instead, so due times are exact
// in tests. BenchmarkPacer10x measures lag and total duration.
package scheduler
