// Package replay is the library entry point of replayctl: it replays a
// recorded MCP session (a tape) against a target and returns a report.
// `replayctl run` is a thin layer over it, and gives the same report for
// the same inputs.
//
//	rep, err := replay.Run(ctx, "examples/quickstart.jsonl",
//		replay.Against(replay.Command("node", "server.js")),
//		replay.WithSpeed(replay.Fast()))
//	if rep == nil {
//		return err // nothing replayed: a bad option, config or tape
//	}
//	fmt.Println(rep.Passed(), rep.ExitStatus())
//
// For `go test`, package replaytest wraps Run and fails the test with one
// error per message that did not go as recorded.
//
// # Tapes
//
// Run takes the path of a tape in any format replayctl reads (its own
// JSON Lines, Agent VCR .vcr); RunSource takes a tape.Source, e.g. bytes
// built in memory (tape.Bytes).
//
// # Targets
//
// A target is a value given with Against:
//   - Mock (the default): the tape answers its own requests, as its server
//     did; MockTape answers from another tape.
//   - Command: a server process per session, over stdio (WithEnv, WithDir).
//   - HTTP: a Streamable HTTP endpoint, or a 2024-11-05 HTTP+SSE one
//     (detected, or WithLegacySSE); WithHeader adds headers. A redirect
//     to another origin fails the request unless WithFollowRedirects,
//     which still sends none of the headers there.
//   - Handler: an http.Handler in this process, with no port, e.g. the
//     go-sdk's mcp.NewStreamableHTTPHandler.
//   - Streams: a server in this process over a pair of streams, e.g. a
//     go-sdk server run over an mcp.IOTransport.
//   - Via: a Transport of any package (Dialer and String), e.g. a new
//     protocol: each target above is one, in a file of its own
//     (target_mock.go, target_command.go, target_http.go,
//     target_inprocess.go) beside the transport.Dialer it makes.
//
// Every session (and every virtual copy of one, see Sessions) has a
// connection of its own: its own process, HTTP session or streams.
//
// # Options
//
// Every knob of `replayctl run` is an option: pacing (WithSpeed, Sessions,
// Ramp, Order, Steps), limits (Timeout, MaxInflight, MaxLine, MaxMessage,
// TimelineLimit, MethodLimit), errors (OnError, MaxRetries, RetryDelay),
// validation (Validation, Ignore, ValidateNotifications, Thresholds), the
// report's latency (IncludeHandshake), chaos (Chaos, Seed,
// ChaosFrom, ChaosFaults), a YAML config (ConfigFile or Config: transformations,
// validation rules, filters, chaos, thresholds) and Logger. Options given
// override the config file's values, which override the defaults (and
// Defaults, which replaytest uses to replay fast). New checks them all
// before anything is replayed; a bad one is an *OptionError naming the
// option, a bad config a *ConfigError or *config.Error (with its line).
//
// Speed (Realtime, Fast, Stepped, Times, Rate, Fixed), Ordering (Causal,
// Sequential, Unordered, Shuffled), ErrorPolicy (Continue, Stop, Retry,
// Pause) and validator.Mode are typed values; ParseSpeed, ParseOrdering,
// ParseErrorPolicy and ParseValidation read the texts the CLI and the
// config file take.
//
// # Hooks
//
// Hooks are options too, and add up: BeforeSend sees each client message
// before it is paced and may edit or drop it; OnResult sees each result
// the report counts (checked or not: a notification sent, a skip);
// OnFault each injected fault; OnSessionEnd each finished session. BeforeSend is called from one goroutine, the others from
// another; none should block for long.
//
// # Events
//
// OnEvent sees the replay as it runs: a typed, timestamped event for
// everything that happens (package event), from a goroutine of its own,
// every event in order. Events adds other consumers: a file
// (event.JSONLines, as `replayctl run --out json=FILE` writes), or a live
// view that may lose the oldest events but never slows the replay.
//
// # Outcome
//
// The report says what happened (report.Report); its Passed and
// ExitStatus methods are the outcome policy the CLI exits by: failed
// answers, errors, timeouts and thresholds fail it (1), a failed target is
// 3, an interrupt 130. Run's error is nil when the replay went to the end
// of the tape, whether or not it passed; otherwise it says why it stopped
// early, and the report covers what was replayed.
//
// # Secrets
//
// The values the user marked secret — taken from the environment by the
// config (${env.NAME}) or by a header (${NAME}), and the values of the
// target's credential headers and URL — are in Replay.Secrets. The
// results the hooks see, the report and Run's error have them redacted,
// in every encoding (tape.Redactor); the credentials a tape or a server
// carries under a sensitive name (tape.Sensitive) are masked there too
// (report.Redact). Logs go to your Logger as they are: redact them with
// tape.RedactorOf(r.Secrets()).Writer.
//
// # Controllers
//
// New prepares a replay without running it. With the Control option it is
// a controlled replay: New attaches a controller (package controller) to
// it, handed out by Replay.Controller, which steps, seeks and pauses it.
// Package debug runs a stepped debug session on one (`replayctl debug`).
package replay
