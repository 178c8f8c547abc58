// Package debug is the library entry point of `replayctl debug`: a
// stepped debug session of a tape against a target, message by message.
// It builds the replay in controlled mode (replay.Control), runs it and
// its controller, and gives the commands a debugger needs as methods that
// return typed values: Begin (the handshake), Step, Continue, Pause,
// Seek, breakpoints (by seq, method or expression), SetSpeed, Status,
// List, Message, View (the expected-vs-actual view of the last answer),
// Inject and Modify. `replayctl debug` maps its flags to this package's
// options, reads the terminal and prints; a Go program, or the browser
// view (package ui, through Session.Controller), drives the same session
// without the CLI.
//
//	s, err := debug.New(tape.File("tape.jsonl"),
//		debug.WithReplay(replay.Against(replay.Command("server", "stdio"))),
//		debug.OnShow(func(r report.Result) { fmt.Println(r.Seq, r.Method, r.Verdict) }))
//	if err != nil {
//		return err
//	}
//	rep, err := s.Run(ctx, func(ctx context.Context) error {
//		if _, err := s.Begin(ctx); err != nil { // the handshake
//			return err
//		}
//		_, err := s.Step(ctx, 1)
//		return err
//	})
//
// # The session
//
// Run runs the replay and its controller, and calls drive on the
// caller's goroutine with a context that ends when the session does (the
// target died, or a stop came over the control socket). The session ends
// when drive returns. Commands are called from drive's goroutine, one at
// a time: the session keeps what the commands share (the last answer,
// what a seek dropped) for that goroutine. The controller
// (Session.Controller) may be driven from anywhere at the same time, as
// the browser view and the control socket (WithControl) do.
//
// # Results
//
// Every result of a client message a command makes known — those of a
// step, those judged while the replay runs, the answer to an injected
// message — is handed to the OnShow hooks, in order, on the goroutine of
// the command, once. The moves (Begin, Step, Continue, Pause, Seek) return
// where the replay then stands (Place).
//
// # The command language
//
// Parse reads one line of the debugger's command language (step 3,
// break tools/call, print answer, …) into a typed Command; Commands lists
// them, as help does; Complete is the Tab completion of a line.
//
// # Errors
//
// A command that cannot be carried out returns an error saying why, to
// show, and the session goes on. controller.ErrStopped, or the context's
// error, says the session has ended.
package debug
