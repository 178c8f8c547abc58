// Package tracefile writes a replay as a trace in the Trace Event Format
// (the JSON that Chrome's about:tracing and Perfetto, ui.perfetto.dev,
// open), from the replay's event stream (package engine/event).
//
// Each session is a process of the trace, named after the session
// ("session s1#3"), with one thread (the session's messages): each
// request is an async slice from its due time to its answer, with
// nested slices for the time it was held for the target ("held: order":
// why it waited), the time it was late past that (lag) and the time it
// awaited its answer; a flow arrow goes from the request to its answer,
// a marker on the session's thread carrying the verdict. Notifications,
// server messages, skips, faults, retries, reconnects and the session's
// end are instant events on that thread; each request's lag is a counter
// of the session. The run itself is process 1 ("replay"), with the run's
// end.
//
// A [Trace] keeps what it has seen in memory (about 200 bytes a request)
// and writes the file at the end ([Trace.WriteTo]), its events in time
// order: the file is written whole, atomically, by its caller.
package tracefile
