// Package compare replays one tape against two live servers, a primary
// (the version known to be good) and a candidate (the new one), and says
// which answers really changed: a differential replay after Twitter's
// Diffy, aware of MCP.
//
//	rep, err := compare.Run(ctx, "recorded.jsonl",
//		replay.HTTP("http://127.0.0.1:3000/mcp"),    // primary
//		replay.Command("node", "server-v2.js"),       // candidate
//		compare.ReplayOptions(replay.WithSpeed(replay.Fast())))
//	if err != nil {
//		return err
//	}
//	fmt.Println(len(rep.Changed), "paths changed")
//
// # Runs
//
// The tape is replayed once per target, one target after another, with
// the same options: the same schedule, sessions and request ids. The
// answers of the runs are paired by session and seq (the request they
// answer), and so are the server's notifications the tape has (each
// recorded one paired with the live one of its method, in order; see
// Notifications). Noise is what differs between two runs of the known-good code:
// the primary and a secondary target (Secondary), or, without one, the
// primary replayed a second time.
//
// # Differences
//
// Two answers are compared as package validator compares an answer with
// its recording (exact mode): the top-level id and jsonrpc never, nor the
// values MCP makes anew for each request (a multi-round result's
// requestState, a task's id and times); params' _meta and requestState
// (tapediff.VolatileParams) and a progress token are left out; strings
// are normalised by tapediff.DefaultNormalizers (timestamps and UUIDs)
// and by Normalize; Ignore adds paths not compared. An answer present in
// one run and absent in the other differs at "$".
//
// For each method and name (the tool, prompt or resource URI) and each
// path, raw counts the pairs where primary and candidate differ there and
// noise the pairs where primary and secondary do. A path is reported as
// changed, as Diffy does, when raw > noise and both margins are passed:
//
//	relative = |raw − noise| / (raw + noise) × 100 > RelativeMargin (default 20)
//	absolute = |raw − noise| / total × 100        > AbsoluteMargin (default 0.03)
//
// where total is the number of answers of that method and name compared.
// A value that differs in every run (a random id, the time as a number)
// has raw = noise and is noise, not a change.
//
// # Latency
//
// Each run's report holds, per method and name, an HDR histogram of its
// latencies. Primary and candidate are compared distribution against
// distribution (history.Compare: p50, p95, p99, the Kolmogorov–Smirnov
// and Mann–Whitney tests, a change when p < LatencyAlpha and the median
// or p95 moved by at least LatencyMinEffect), and p90 beside them;
// primary and secondary too, which says how much a run differs from
// another of the same code on this machine.
//
// # Cost
//
// Three replays, one after another, and one comparison of each pair of
// answers: the answers of the three runs are held in memory until the
// end.
package compare
