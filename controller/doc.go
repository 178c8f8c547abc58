// Package controller is the command actor of a replay: pause, resume,
// step, seek, breakpoints, speed, inject, modify-next and stop, with status
// updates for any number of subscribers. It is what package debug
// (`replayctl debug`), the browser view and the `--control
// unix:/path.sock` socket drive. A replay made with replay.Control has
// one, attached to its engine (replay.Replay.Controller).
//
// # The actor
//
// One goroutine (Run) owns the replay's state, after etcd-io/raft's
// node.go: a select loop over typed channels. Commands are values with a
// reply channel; each command method returns once the command has taken
// effect, or when its ctx is done, or with ErrStopped once the controller
// has stopped. Stop is idempotent and waits for Run to return. The
// decisions themselves are plain functions (decideGate, pausesOn,
// Condition.Match), table-tested without goroutines.
//
// # Wiring into the engine
//
// The engine implements Replay and reports from its stages:
//
//	pauses:   for pause := range c.PauseEvents() { stop or restart the
//	          replay time every session's clock shares }
//	session:  each session's actor, once a client message falls due by
//	          its clock (or its ticket, at fixed and rps speeds):
//	              a, err := c.Admit(ctx, msg, epoch) // blocks while paused
//	              ErrStale: drop it; ErrStopped: stop
//	              a.Held() > 0: the gate held it; replay time stood still
//	              if a.Replace != nil { send a.Replace instead }
//	session:  c.Sent(seq)      // the session's actor: on the wire, or dropped there
//	validate: c.Judged(result) // the verdict (Timeout when no answer came)
//	end:      c.End()          // the tape is finished
//	stream:   c.Watch(start)   // a live consumer of the replay's event stream
//
// Admit, Sent, Judged and End drive the gate: a step, the lockstep after
// an error and a pause wait on them, so they are calls, never dropped.
// What the controller shows goes the other way: its watchers
// (WatchEvents, the protocol's watch) read the replay's event stream
// (package event) through Watch, a live consumer that drops the oldest
// events when behind, counted, and never slows the replay.
//
// Admit's epoch is the engine's epoch of the message: each Replay.Seek must
// give the messages loaded after it a higher epoch than any loaded before
// it (the engine's counter, bumped by one per seek, does).
//
// # Guarantees
//
//   - Pause returns once every message Admit let through has been Sent: after
//     it, nothing more reaches the target until Resume or Step.
//   - Step(n) lets exactly n messages through, one at a time, and returns
//     when each has been Judged (a breakpoint, an error or the end stops it
//     early).
//   - Seek(N) then Step sends message N, and nothing of an older epoch: a
//     message held in the gate or arriving later with an older epoch gets
//     ErrStale.
//   - A breakpoint closes the gate before its message; Status.Reason says
//     which ("breakpoint 2 (method tools/call)"). Resume and Step let that
//     message through without stopping at it again.
//   - Pause stops replay time: the engine stops the clock its sessions
//     share through PauseEvents, and Admission reports the time a message
//     was held in the gate, so on resume the due times have moved by the
//     pause.
//   - With OnErrorPause (the default) a failed, error or timeout verdict
//     pauses the replay ("error at seq 12"). The gate then runs in lockstep
//     — a message is released only when every earlier one has been judged —
//     so the replay stops at the failing message, before the next is sent.
//   - A slow subscriber loses the oldest updates (counted in its
//     Status.Dropped); the controller never waits for one. A slow
//     watcher loses the oldest events (Watcher.Lost); neither the
//     controller nor the replay waits for one.
//
// # Breakpoint specs
//
// A bare integer is a seq ("12"); a word that looks like a method is a
// method ("ping", "tools/call"); anything else is an expression of
// github.com/expr-lang/expr that must give a bool, over the message about to
// be sent. The language is package match's (shared with transformation
// rules); ParseCondition is match.Parse, and Msg is match.Msg:
//
//	seq      int     the message's position in the tape
//	session  string  the recorded session
//	dir      string  "c2s" or "s2c"
//	kind     string  "request", "notification", "response" or "error"
//	method   string  the method, "" for an answer
//	id       any     the JSON-RPC id, decoded (a number or a string), or nil
//	params   any     the decoded params (maps, lists, strings, float64, bool), or nil
//	result   any     the decoded result, or nil
//	error    any     the decoded error object, or nil
//
// for example
//
//	method == "tools/call" && params.arguments.message == "m7"
//	params.name in ["echo", "add"] && seq > 10
//	error.code == -32601
//
// A missing member anywhere in a path is nil, never an error
// (params.arguments.message on a message without params). A condition that
// fails at run time (an index out of range, a string plus a number) does
// not match; its first error is logged, kept on the breakpoint and shown
// once in Status.Note. Compile errors name the expression and the column.
//
// # Control protocol (--control unix:/path.sock)
//
// ServeUnix serves it (ListenUnix, then Serve): JSON lines over a Unix
// socket, any number of clients. A client writes one command object per
// line; each gets one reply line, in order, when the command has finished
// (so "wait" holds the commands after it on that connection, as a REPL
// does; use a second connection meanwhile). Between replies the server
// pushes status events.
//
// The socket is the replay's user's alone: it is made 0600 before it
// appears at its path, and on Linux a client of another uid is refused
// (SO_PEERCRED). A socket file left by a killed replay is replaced; one a
// live replay listens on is refused. A client that does not read what is
// sent to it for WriteTimeout (5s by default) is hung up on: no client
// holds the controller, or the end of Serve.
//
//	→ {"id":1,"cmd":"step","n":2}
//	← {"event":"status","status":{"state":"running","seq":4,"reason":"step",…}}
//	← {"id":1,"ok":true,"results":[{"seq":4,"verdict":"passed",…},…],"status":{…}}
//	→ {"id":2,"cmd":"bogus"}
//	← {"id":2,"ok":false,"error":"unknown command \"bogus\"; want one of …"}
//
// "id" is any JSON value, echoed. Commands and their arguments:
//
//	start                         begin (paused before the first message unless started running)
//	pause                         returns when nothing more will be sent
//	resume, continue, c           returns at once; use wait
//	step, s       n (default 1)   returns with "results"
//	seek          seq
//	seek_match    spec            returns the "seq" sought to
//	speed         speed           e.g. "10x", "fast", "rps:50"
//	break, b      spec            returns "breakpoint"
//	delete, d     bp              a breakpoint id
//	breakpoints                   returns "breakpoints"
//	inject        session, msg    msg: a JSON-RPC object, sent now on that session
//	modify        msg             replaces the next message sent, once
//	status                        returns "status"
//	wait                          returns "status" when paused (breakpoint, error, step, pause) or ended
//	watch                         from now on, this connection also gets the replay's events
//	stop                          stops the controller; the server then closes every connection
//
// Every successful reply carries the "status" after the command. A status
// is {"state","seq","reason","speed","released","sent","judged","dropped",
// "note","last"}, where "last" is the last verdict. A verdict ("last",
// and each of a step's "results") has the one wire shape of a result
// (report.TimelineEntry, as in the JSON report's timeline): {"seq",
// "session","method","dir","kind","due_ms","sent_ms","answered_ms",
// "latency_ms","verdict","error","differences"}, times in milliseconds
// since the replay started, null when not applicable; "kind", "error" and
// "differences" are absent when empty.
//
// After watch, every event of the replay's stream is pushed as
//
//	← {"event":"stream","stream":{"type":"judged","t_us":5012,"seq":4,…},"result":{…},"lost":3}
//
// where "stream" is the event as `replayctl run --out json=FILE` writes it,
// "result" (judged events) its verdict in the shape above, and "lost" the
// events this connection has lost so far (absent: none): a client that
// reads slowly loses the oldest events rather than slowing the replay.
// Status events go on as before; a client that never sends watch gets no
// stream lines. (A verdict's fields are those it had, and more: the times;
// "latency_ms" is null, no longer absent, when no answer came.)
// A line that is not a valid command gets {"ok":false,"error":…}; a line
// over 16 MiB ends the connection.
package controller
