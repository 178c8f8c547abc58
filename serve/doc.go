// Package serve is the library entry point of `replayctl serve`: it serves
// a tape as an MCP server, to a client or agent under test, in one of the
// record-or-replay modes go-vcr and mcp-cassette users know (Replay,
// Record, Once, New). `replayctl serve` maps its flags to this package's
// options and prints what the hooks report; a Go program gets the same
// server without the CLI.
//
//	s, err := serve.New("tape.jsonl",
//		serve.Listen("127.0.0.1:0"),
//		serve.OnListening(func(a net.Addr) { fmt.Println("http://" + a.String() + "/mcp") }))
//	if err != nil {
//		return err
//	}
//	res, err := s.Run(ctx) // until ctx is done
//
// # Modes
//
//   - Replay (the default) answers from the tape only (a mock.Server).
//   - Record passes everything through to the real server and writes the
//     tape: the recording proxy is given with WithRecorder.
//   - Once replays the tape when it exists, else records it.
//   - New answers from the tape; a request it has no answer for is
//     forwarded to the upstream (Upstream, a transport.Dialer), the real
//     answer goes back to the client, and the exchange is written line by
//     line to a journal next to the tape (Journal), merged into the tape
//     when Run returns. A journal a crash left behind is merged when the
//     next Run in mode New starts.
//
// # Listeners
//
// Without Listen or WithListener, Run serves one client over stdio
// (Stdio, by default the process's stdin and stdout). With one, it serves
// Streamable HTTP at /mcp and the legacy HTTP+SSE transport at /sse until
// ctx is done.
//
// # Hooks
//
// OnLoaded runs once the tape is read, before anything is served;
// OnListening when the HTTP listener is open; OnServed once the clients
// are gone, with what was missed and injected, before mode New merges its
// journal. What serve says to a person as it decides (the mode a Once run
// takes, a journal merged) goes to the Notices writer.
//
// # Errors
//
// Bad input (an unreadable tape, a journal that cannot be written or
// merged, a second Run in mode New on one tape) is an *InputError. A
// listener that cannot be opened and a recording that fails return their
// own errors unchanged; a client's message over the limit is a
// *transport.TooLargeError.
package serve
