// Package ui is the browser view of a replay: an HTTP server on loopback
// that serves one page, embedded in the binary (no network at run time, no
// JS framework), and a live feed of the replay's event stream over
// Server-Sent Events.
//
// # What it reads
//
// The server is a live consumer of the replay's event stream (package
// event; [Server.Consumer]): it never slows the replay; when it falls
// behind, the stream drops its oldest events and the report counts them.
// The bytes of each message (as sent, the live answer, the recorded
// answer) come from the replay's result hook ([Server.OnResult]); the
// stream carries none outside a debugger. [Server.Options] gives both as
// replay options.
//
// # The feed
//
// GET /events is an SSE stream. Events are encoded once, as they arrive,
// into the pending frame; every [WithFrame] (100 ms) the pending frame is
// sealed, numbered, kept in the journal and sent to every viewer as one
// SSE message whose id is the frame's number. A viewer that reconnects
// sends Last-Event-ID and is sent the frames after it; a new viewer is
// sent every frame from the run's start. The journal keeps at most
// [WithJournal] events (1,000,000 by default, about 60 MB); past that its
// oldest frames are dropped, and a viewer that asks for them is told how
// many events it will not see (the page says so). The wire format is in
// feed.go.
//
// # Who may read it
//
// Every request needs the server's token: ?token=T in the URL (the
// address printed on start carries it) or Authorization: Bearer T (a
// Prometheus scrape). Without it: 401. A request whose Host is not a name
// of this server, or whose Origin is a page elsewhere (DNS rebinding, a
// cross-site request), is refused with 403 (transport.Guard). Handlers
// added with [Server.Handle] (/metrics) are behind the same checks.
//
// # Debugging
//
// With a controller ([WithController]) the page can pause, resume, step,
// seek, set and delete breakpoints and change the speed (POST
// /api/control), through the same controller the REPL and the control
// socket use; every status the controller publishes is pushed to the page
// as a state event, so the page follows what the REPL does, and the REPL
// sees what the page did.
package ui
