// Command slow is an MCP test server for timing, load and hang tests:
// tools/call answers come after -delay, each request on its own, so
// concurrent calls are answered concurrently; every arrival can be logged
// with its time (and over HTTP, with -rx, with the kernel's receive time
// of the request too: when it reached the server, not when the server
// got round to reading it; see ../rxstamp); and -hang makes it misbehave
// the way real servers do.
// It serves stdio (newline-delimited JSON-RPC, exits 0 when stdin ends)
// or, with -http, a stateless Streamable HTTP endpoint at /mcp. The
// protocol lives in ../slowmcp.
//
//	slow [-delay D] [-start D] [-init-delay D] [-cancel] [-ask METHOD:D] [-arrivals FILE [-gate N]] [-hang MODE] [-size N] [-http ADDR [-rx]]
//
// Interrupt or SIGTERM stops it at once with status 0, dropping answers
// still delayed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/replayctl/replayctl/internal/testserver/rxstamp"
	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("slow", flag.ContinueOnError)
	fs.SetOutput(stderr)
	delay := fs.Duration("delay", 0, "answer every tools/call after this long (each request independently)")
	startDelay := fs.Duration("start", 0, "sleep this long before reading stdin or listening")
	initDelay := fs.Duration("init-delay", 0, "answer initialize after this long")
	ask := fs.String("ask", "", "stdio: `METHOD:D` sends a METHOD request (ids ask-1, …) D after each notifications/initialized")
	arrivalsPath := fs.String("arrivals", "", "append `FILE` one line per message received: <unix ns> <method|response> <id|->")
	hangFlag := fs.String("hang", "none", "misbehave: none, headers (HTTP: no answer headers for tools/call), noread (stdio: stop reading after initialize), 429 (HTTP: tools/call gets 429), endless (tools/call answer without end), gzip-bomb (HTTP: 1 MiB of gzip, 1 GiB unpacked), sse-endless (HTTP: an SSE data line without end), silent (stdio: tools/call is never answered)")
	honourCancel := fs.Bool("cancel", false, "stdio: honour notifications/cancelled: a delayed answer (-delay, -init-delay) whose request the client cancels is never written (initialize too)")
	answerSize := fs.Int("size", 0, "answer every tools/call with a text of this many bytes")
	gateN := fs.Int("gate", 0, "hold every tools/call until the -arrivals `FILE` holds N tools/call lines (servers sharing it count together), then -delay")
	httpAddr := fs.String("http", "", "serve stateless Streamable HTTP at `ADDR`/mcp instead of stdio")
	rx := fs.Bool("rx", false, "with -http and -arrivals: add each request's kernel receive time (rx=<unix ns>, Linux SO_TIMESTAMPNS) to its arrival line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	hang, err := slowmcp.ParseHang(*hangFlag)
	if err == nil {
		err = checkTransport(hang, *httpAddr != "")
	}
	if err != nil {
		fmt.Fprintf(stderr, "slow: -hang: %v\n", err)
		return 2
	}
	opts := []slowmcp.Option{slowmcp.WithDelay(*delay), slowmcp.WithHang(hang), slowmcp.WithInitDelay(*initDelay), slowmcp.WithAnswerSize(*answerSize)}
	if *honourCancel {
		opts = append(opts, slowmcp.WithCancel())
	}
	if *ask != "" {
		method, after, ok := strings.Cut(*ask, ":")
		d, err := time.ParseDuration(after)
		if !ok || method == "" || err != nil {
			fmt.Fprintf(stderr, "slow: -ask %q: want METHOD:DURATION, e.g. roots/list:350ms\n", *ask)
			return 2
		}
		opts = append(opts, slowmcp.WithAsk(method, d))
	}
	if *arrivalsPath != "" {
		f, err := os.OpenFile(*arrivalsPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "slow: -arrivals: %v\n", err)
			return 1
		}
		defer f.Close()
		opts = append(opts, slowmcp.WithArrivals(f))
	}

	if *rx && (*httpAddr == "" || *arrivalsPath == "" || !rxstamp.Supported) {
		fmt.Fprintf(stderr, "slow: -rx: want -http ADDR and -arrivals FILE, on Linux (the kernel's receive stamps)\n")
		return 2
	}
	if *gateN != 0 {
		if *gateN < 0 || *arrivalsPath == "" {
			fmt.Fprintf(stderr, "slow: -gate %d: want a count of 1 or more, with -arrivals FILE (the log it counts)\n", *gateN)
			return 2
		}
		opts = append(opts, slowmcp.WithGate(*arrivalsPath, *gateN))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	time.Sleep(*startDelay)
	if *httpAddr != "" {
		err = serveHTTP(ctx, *httpAddr, hang, *delay, *rx, slowmcp.Handler(opts...))
	} else {
		// A read of stdin cannot be interrupted: a signal ends the process.
		context.AfterFunc(ctx, func() { os.Exit(0) })
		err = slowmcp.Serve(ctx, stdin, stdout, opts...)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "slow: %v\n", err)
		return 1
	}
	return 0
}

// checkTransport refuses a hang mode the chosen transport cannot show.
func checkTransport(h slowmcp.Hang, overHTTP bool) error {
	switch {
	case overHTTP && (h == slowmcp.HangNoRead || h == slowmcp.HangSilent):
		return fmt.Errorf("%s is a stdio mode: drop -http", h)
	case !overHTTP && (h == slowmcp.HangHeaders || h == slowmcp.Hang429 || h == slowmcp.HangGzipBomb || h == slowmcp.HangSSEEndless):
		return fmt.Errorf("%s is an HTTP mode: add -http 127.0.0.1:PORT", h)
	}
	return nil
}

// serveHTTP serves h at /mcp on addr until ctx is done. Timeouts are
// generous, and off where hanging is the point.
// With rx, each connection's reads keep the kernel's receive time, for
// the arrival log (rxstamp).
func serveHTTP(ctx context.Context, addr string, hang slowmcp.Hang, delay time.Duration, rx bool, h http.Handler) error {
	srv := &http.Server{
		Handler:           slowmcp.Mux(h),
		ReadHeaderTimeout: 30 * time.Second,
		// No ReadTimeout: its deadline would also end a long handler.
		WriteTimeout: delay + time.Minute,
		IdleTimeout:  2 * time.Minute,
	}
	if hang == slowmcp.HangHeaders {
		srv.WriteTimeout = 0
	}
	if rx {
		// On before the port opens: a client that finds it open (the
		// tests dial until it is) may send at once, and bytes the kernel
		// took before its stamping was on would go unstamped.
		off, err := rxstamp.On()
		if err != nil {
			return err
		}
		defer off()
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if rx {
		l = rxstamp.Listen(l)
		srv.ConnContext = rxstamp.WithConn
	}
	stopped := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stopped()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
