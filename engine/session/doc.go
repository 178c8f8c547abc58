// Package session replays one session of a tape: its actor is the one
// goroutine that owns the session's connection, its requests in flight
// and their deadlines, its clock, its retries and reconnects, after the
// model of net/http's conn.serve.
//
// The engine (package engine) routes each recorded message to its
// session's actor (Actor.Put) and never waits for it; the actor reports
// what happened to a Sink (outcomes to be judged, the items it has taken
// and holds, counters, its end). What every session shares is an Env, an
// immutable value set up once before the first session starts: the
// dialer, the timeouts and limits, the order rule, the chaos plan, the
// shared pacing (scheduler.Shared), the event stream and the gate. An
// actor holds no pointer back to the engine.
//
// Timing: every session paces its own messages, at every speed. At
// realtime and Nx by its own clock, anchored when its connection is ready
// and again when its live handshake completes; at fixed and rps by the
// tickets all sessions share (scheduler.Shared.Take). Once due, a message
// passes Env.Gate, if there is one (a controller's, or stepped); the actor
// asks it on a goroutine of its own and goes on reading answers meanwhile.
//
// Pairing: the recorded answer of a request flows down the pipeline as an
// item of its own, right where it was on the tape, so in causal order (the
// default) the session waits for the live answer before it lets anything
// recorded later through, exactly as the recorded client did. The
// client's recorded answer to a server request (roots/list, sampling,
// elicitation) holds what was recorded after it in the same way, until the
// live server asks and gets it (within Env.Timeout). After a chaos
// reconnect the fresh initialize holds the session likewise.
package session
