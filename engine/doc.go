// Package engine wires the replay pipeline: load → transform → schedule →
// execute → validate, one goroutine per stage, passing items over channels,
// supervised by an errgroup.
//
// Every item carries the epoch it was loaded in. A seek bumps the engine's
// epoch; each stage drops items of an older epoch, so nothing stale reaches
// the target after a seek.
//
// The execute stage owns the connections to the target (one per recorded
// session) and the table of requests in flight. It pairs each answer with the
// recorded one: the recorded answer flows down the pipeline as an item of
// its own, right where it was on the tape, so in causal order (the default)
// execute waits for the live answer before it lets anything recorded later
// through, exactly as the recorded client did.
package engine
