// Package coord runs the shards of one replay as one run: a coordinator
// (Server, replayctl coordinate) that shard processes (Client, replayctl
// run --coordinator URL) connect out to over HTTP. It gives them one
// start, merges what they measure as they go, judges the thresholds on
// the merged data, and merges their reports into one.
//
// # Protocol
//
// Every call is a POST of a JSON body to the coordinator, answered with a
// JSON [Reply] (200) or {"error": "…"} (4xx: refused for good, the shard
// exits; 5xx or no connection: the shard retries, with exponential
// backoff, for as long as the coordinator's heartbeat). With a token
// (replayctl: REPLAYCTL_COORDINATOR_TOKEN on both sides) every call
// carries "Authorization: Bearer TOKEN"; a wrong one is 401.
//
//  1. Register (PathRegister, a [Hello]): the shard's index and count,
//     the fingerprint of its tape, config file and run flags, its
//     thresholds, and an attempt id (random per process). A count other
//     than the coordinator's, or a fingerprint other than the first
//     shard's, is refused (409): every shard must replay the same run.
//     The reply's action follows the retry rule below; it carries the
//     interval and the heartbeat.
//  2. Ready barrier and the start (PathStart, the Hello again): a long
//     poll. Once every index has registered, the coordinator sets one
//     common start, StartLead after the last registration, and every
//     poll answers Run with it. The shard anchors its clock to it
//     (replay.StartAt): no session starts before it, the tape's first
//     message is due at it in every shard, and the speeds that pace by
//     count take their first ticket at it. A shard that started late
//     sends at once what is already due, and its lag shows it.
//  3. While replaying, the shard keeps a control poll open (PathControl,
//     a long poll answered Stop with why, or Continue after half the
//     heartbeat, then polled again) and streams an [Interval] every
//     Interval (PathInterval): a report of what it judged since the last
//     one, with report.Report's lossless histograms section (HDR V2
//     compressed), and when it sent its first request. The coordinator
//     adds each to one collector (report.Collector.MergeReport): the
//     merged stream, bucket for bucket the histogram of every shard's
//     values. With AbortOnFail it judges the thresholds on it after
//     every interval, and one that fails stops every shard (the control
//     polls answer Stop at once). Metrics of the whole run (throughput,
//     duration and the load metrics) and thresholds with no data yet are
//     judged at the end only.
//  4. Final (PathFinal, a [Final]): the shard's whole report (or why it
//     has none), after its last interval. The coordinator merges the
//     reports (report.Merge, thresholds re-judged on the merged figures)
//     once every shard is done or lost, and adds the coordination
//     section: the start, each shard's first request after it (the
//     start skew), the lost shards.
//
// # Lost shards and retries
//
// A registered shard with no poll open that has not been heard of for
// the heartbeat is named lost: its process or its connection went. (A
// killed process closes its poll at once, so the heartbeat is all the
// wait.) Its sessions are not in the report, which names it and fails.
//
// A registration for an index already taken is decided by [admit]:
//
//   - the same process (same attempt: it lost its connection and
//     reconnects): Resume, it goes on; Stop if it was named lost
//     meanwhile (its data is already left out of the report);
//   - another process before the start (a pod retried before the run
//     began): Run; it takes the index;
//   - another process after the start: Stop. The index stays with the
//     process that has it, or is named lost: replaying its share again
//     would send its sessions twice, or off the common start;
//   - any process for an index whose report is in: Stop.
//
// A shard told to stop before it replayed anything exits 0 (replayctl),
// so that a Kubernetes Indexed Job does not retry it again.
package coord
