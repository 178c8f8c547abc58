package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/forward"
	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/internal/termsafe"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/serve"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/ui"
)

func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve TAPE [--mode replay|record|once|new] [--upstream URL | -- SERVER_COMMAND ARGS...]",
		Short: "Serve a tape as an MCP server, for a client or agent under test",
		Long: `Serve a tape as an MCP server: a client under test talks to it as it would to
the server the tape recorded, and gets the recorded answers, with its own ids.

Without --listen, serve speaks over stdio: a client starts
"replayctl serve tape.jsonl" as its server command. Nothing but protocol
goes to stdout; the summary and logs go to stderr. It stops when the client
closes its end; answers still being made then get 10 s, and are cancelled.

With --listen 127.0.0.1:PORT, serve speaks Streamable HTTP at
http://127.0.0.1:PORT/mcp (both eras: sessions with Mcp-Session-Id and the
GET stream, and stateless 2026-07-28 with server/discover; one tape session
per stateless POST) and the legacy HTTP+SSE transport of 2024-11-05 at
http://127.0.0.1:PORT/sse. It prints the URL on stderr and serves until
SIGINT or SIGTERM; a client that does not read its answer cannot hold it
up, and a second signal while it stops ends it at once (exit 130). DNS
rebinding protection, in every mode: a request whose Host is not one of the
server's names (localhost, 127.0.0.1, [::1], the address it reached,
--allow-host NAME) or whose browser Origin is not allowed (loopback origins
on loopback, --allow-origin ORIGIN) is refused with 403. A --listen beyond
loopback (0.0.0.0:PORT, :PORT) gets a warning on stderr.

A request the tape has no answer for is a miss: the client gets a JSON-RPC
error naming the closest recorded request and what differs, and serve lists
every miss when it stops. --chaos injects seeded faults toward the client
(the same --seed gives the same faults); serve lists them when it stops.

Limits against clients that send too much or too slowly: a request body
must arrive within --body-timeout (10s; else 408); the bodies held at once
stay within --body-budget (64MiB; else 503 with Retry-After); at --max-conns
connections the one waiting longest on its client is closed for a new one;
a batch over --max-batch (1000) gets one error; the first --max-misses
(1000) misses are kept, later ones counted; in --mode new at most
--max-upstreams (8) upstream connections are open, each closed after
--upstream-idle-timeout (60s) without a miss, and a forwarded request
waits --upstream-timeout (60s) for its answer.

--ui 127.0.0.1:0 shows the traffic in a browser as it comes: each client
session a lane, each request a bar coloured served, miss or forwarded (the
address, with its token, is printed on stderr).

Exit status: 0 served (misses or not); 1 with --strict when there was a
miss; 2 bad usage or an unreadable tape.
` + serveModesHelp,
		Example: `  replayctl serve tape.jsonl --listen 127.0.0.1:8080
  replayctl serve tape.jsonl --mode once -- go tool everything-server
  replayctl serve tape.jsonl --mode new --listen 127.0.0.1:8080 --upstream http://127.0.0.1:3000/mcp`,
		Args: func(cmd *cobra.Command, args []string) error {
			path, argv, err := serveArgs(cmd, args)
			f.path, f.argv = path, argv
			return err
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := refuseStdinTape("serve", f.path, "serve reads the tape more than once, and over stdio its client speaks there"); err != nil {
				return err
			}
			if err := f.modeFlags.check(f.listen); err != nil {
				return err
			}
			if err := f.serveLimits.check(); err != nil {
				return err
			}
			if err := replayOnly(cmd, f.mode, f.path); err != nil {
				return err
			}
			return a.serve(cmd.Context(), f.path, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "", "serve Streamable HTTP (and legacy HTTP+SSE) on this address, e.g. 127.0.0.1:8080 (port 0: any free port); without it, stdio")
	fl.StringVar(&f.strategy, "strategy", "method_and_params", "how requests are matched to recorded ones: exact | method | method_and_params | subset | sequential")
	fl.StringVar(&f.timing, "timing", "instant", "when answers go: instant | recorded (the recorded latency) | Nx (the recorded latency × N, e.g. 0.5x, 2x)")
	addKnob(fl, "serve", "chaos", &f.chaos)
	addKnob(fl, "serve", "seed", &f.seed)
	fl.BoolVar(&f.strict, "strict", false, "exit 1 when any request missed")
	fl.StringVar(&f.report, "report", "", "write the misses and the injected faults to this JSON file when serve stops")
	addAllowFlags(fl, &f.hosts, &f.origins)
	fl.StringSliceVar(&f.volatile, "volatile", nil, "a request field left out of matching, besides the defaults, e.g. params.arguments.requestId or tools/call:params.arguments.ts (repeatable)")
	fl.BoolVar(&f.repeat, "repeat", false, "answer a request asked more often than recorded again, in recorded order (else it is a miss)")
	addKnob(fl, "serve", "idle-timeout", &f.idle)
	addKnob(fl, "serve", "max-message", (*byteSize)(&f.maxMessage))
	addKnob(fl, "serve", "max-line", (*byteSize)(&f.maxLine))
	f.addLimits(fl)
	fl.StringVar(&f.modeName, "mode", serve.ModeReplay.String(), "replay (the tape only) | record (the upstream, writing TAPE) | once (record if TAPE does not exist, else replay) | new (the tape, misses forwarded to the upstream and added)")
	fl.StringVar(&f.upstream, "upstream", "", "the real server of --mode record, once, new: a Streamable HTTP URL (or give its command after --)")
	fl.BoolVar(&f.force, "force", false, "--mode record: overwrite TAPE if it exists")
	addKnob(fl, "serve", "stop-timeout", &f.stopTimeout)
	addKnob(fl, "serve", "drain", &f.drain)
	addUIFlags(fl, &f.ui)
	f.redaction = addRedactFlags(cmd)
	registerValues(cmd, "mode", serve.Modes()...)
	registerValues(cmd, "strategy", "exact", "method", "method_and_params", "subset", "sequential")
	registerValues(cmd, "timing", "instant", "recorded", "2x", "0.5x")
	return cmd
}

// serve is replayctl serve in the mode f asks for: serve.Server with
// serve's flags, its summary (stderr) and report. A second signal while
// it stops ends it at once.
func (a *app) serve(ctx context.Context, path string, f serveFlags) error {
	defer a.forceOnSecondSignal(ctx, func() string { return serveLeft(path, f) })()
	if f.report != "" {
		if ext := strings.ToLower(filepath.Ext(f.report)); ext != ".json" {
			return usageError("--report %s: serve writes a JSON report; name it .json", f.report)
		}
		if err := atomicfile.Probe(f.report); err != nil {
			return usageError("--report %s: %v", f.report, err)
		}
	}
	opts, seed, err := a.serveOptions(path, f)
	if err != nil {
		return err
	}
	view, err := openUI(f.ui, path, nil, nil)
	if err != nil {
		return err
	}
	defer view.stop()
	opts = append(opts, view.serveOptions()...)
	opts = append(opts,
		serve.Stdio(a.stdin, a.stdout),
		serve.Notices(a.errOut),
		serve.OnLoaded(func() {
			if f.chaos != "" && f.seed == 0 {
				fmt.Fprintf(a.errOut, "chaos: seed %d (repeat these faults with --seed %d)\n", seed, seed)
			}
		}),
		serve.OnServed(func(r serve.Result) { printServeSummary(a.errOut, r.Misses, r.MissCount, r.Injected) }),
	)
	if f.listen != "" {
		opts = append(opts,
			serve.WithListener(func() (net.Listener, error) { return listenTCP("--listen", f.listen) }),
			serve.OnListening(func(addr net.Addr) {
				base := "http://" + addr.String()
				fmt.Fprintf(a.errOut, "serving on %s/mcp (Streamable HTTP; legacy HTTP+SSE: %s/sse); Ctrl-C stops\n", base, base)
				if w := beyondLoopbackWarning(addr); w != "" {
					fmt.Fprintln(a.errOut, w)
				}
			}))
	}
	srv, err := serve.New(path, opts...)
	if err != nil {
		return serveError(err)
	}
	view.start(ctx, a.stderr, nil)
	res, serveErr := srv.Run(ctx)
	if res == nil || res.Recorded {
		return serveError(serveErr)
	}
	if err := view.finishWith((*ui.Server).ServeEnded); err != nil {
		return err
	}
	defer view.wait(ctx, a.stderr) // after the summary
	if res.Redacted != nil {
		printCounts(a.errOut, path, *res.Redacted)
	}
	if f.report != "" {
		if err := writeServeReport(f.report, path, seed, f.chaos != "", res.Misses, res.MissCount, res.Injected); err != nil {
			return err
		}
	}
	if serveErr != nil {
		return serveError(serveErr)
	}
	if f.strict && res.MissCount > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%s had no recorded answer (--strict)", english.Count(int64(res.MissCount), "request"))}
	}
	return nil
}

// serveError gives serve.Run's error its exit status: bad input and a
// client's message over --max-message are 2; the recorder's and the
// listener's come with their own.
func serveError(err error) error {
	var ie *serve.InputError
	var tooLarge *transport.TooLargeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tooLarge):
		return usageError("the client sent a message longer than --max-message (%s); raise it if such messages are right", english.Count(int64(tooLarge.Limit), "byte"))
	case errors.As(err, &ie):
		var ee *exitError
		if errors.As(err, &ee) {
			return err // a recorder's or a redaction flag's own status
		}
		return &exitError{code: exitBadInput, err: err}
	}
	return err
}

// serveLeft says what a serve ended at once by a second signal leaves
// undone.
func serveLeft(path string, f serveFlags) string {
	var left []string
	switch f.mode {
	case serve.ModeNew:
		if _, err := os.Stat(serve.Journal(path)); err == nil {
			left = append(left, serve.Journal(path)+" is kept: the next serve --mode new merges it into the tape")
		} else {
			left = append(left, "the journal is merged into "+path+"; upstream servers still stopping are left to end on their own")
		}
	case serve.ModeRecord, serve.ModeOnce:
		left = append(left, "a tape being recorded keeps what was recorded so far, without its end line")
	}
	if f.report != "" {
		left = append(left, "--report "+f.report+" was not written")
	}
	return strings.Join(left, "; ")
}

// serveOptions turns serve's flags into serve.Server options, and
// returns the chaos seed (drawn when --chaos is given without --seed).
func (a *app) serveOptions(path string, f serveFlags) ([]serve.Option, int64, error) {
	mopts, seed, err := mockOptions(f, a.log)
	if err != nil {
		return nil, 0, err
	}
	opts := []serve.Option{
		serve.WithMode(f.mode),
		serve.WithLogger(a.log),
		serve.WithMock(mopts...),
		serve.WithServer(
			transport.ServerMaxMessage(f.maxMessage),
			transport.AllowOrigins(f.origins...),
			transport.AllowHosts(f.hosts...),
			transport.IdleTimeout(f.idle),
			transport.BodyReadTimeout(f.bodyTimeout),
			transport.BodyBudget(int64(f.bodyBudget)),
			transport.MaxBatch(f.maxBatch),
		),
		serve.MaxConns(f.maxConns),
		serve.MaxLine(f.maxLine),
		serve.WithRedaction(f.redaction),
		serve.WithForward(forward.MaxUpstreams(f.maxUpstreams), forward.IdleTimeout(f.upstreamIdle), forward.AnswerTimeout(f.upstreamWait)),
	}
	switch f.mode {
	case serve.ModeNew:
		opts = append(opts, serve.Upstream(f.upstreamDialer(a)))
	case serve.ModeRecord, serve.ModeOnce:
		opts = append(opts, serve.WithRecorder(a.recorder(path, f)))
	}
	return opts, seed, nil
}

// upstreamDialer is the dialer of the modes' upstream: Streamable HTTP at
// --upstream, else the server command after --.
func (f serveFlags) upstreamDialer(a *app) transport.Dialer {
	if f.upstream != "" {
		return transport.HTTP{URL: f.upstream, Logger: a.log, MaxMessage: f.maxMessage}
	}
	return transport.Stdio{Command: f.argv, Logger: a.log, StopTimeout: f.stopTimeout, MaxMessage: f.maxMessage}
}

// mockOptions turns serve's flags into mock.Server options, and returns
// the chaos seed (drawn when --chaos is given without --seed).
func mockOptions(f serveFlags, log zerolog.Logger) ([]mock.ServerOption, int64, error) {
	st, err := mock.ParseStrategy(f.strategy)
	if err != nil {
		return nil, 0, usageError("--strategy %q: %v", f.strategy, err)
	}
	factor, err := parseTiming(f.timing)
	if err != nil {
		return nil, 0, err
	}
	opts := []mock.ServerOption{
		mock.WithStrategy(st),
		mock.WithLatency(factor),
		mock.WithLogger(log),
		mock.WithServerTapeOptions(tape.WithMaxLine(f.maxLine)),
		mock.WithMaxMisses(f.maxMisses),
	}
	if len(f.volatile) > 0 {
		opts = append(opts, mock.WithVolatile(f.volatile...))
	}
	if f.repeat {
		opts = append(opts, mock.WithRepeat())
	}
	seed := f.seed
	if f.chaos != "" {
		faults, err := mock.ParseChaosSpec(f.chaos)
		if err != nil {
			return nil, 0, usageError("--chaos %q: %v", f.chaos, err)
		}
		if seed == 0 {
			seed = rand.Int64N(1<<31-1) + 1
		}
		plan, err := mock.NewChaos(seed, faults)
		if err != nil {
			return nil, 0, usageError("--chaos %q: %v", f.chaos, err)
		}
		opts = append(opts, mock.WithChaos(plan))
	}
	return opts, seed, nil
}

// parseTiming reads --timing: instant (0), recorded (1) or Nx (N > 0).
func parseTiming(s string) (float64, error) {
	switch s {
	case "instant":
		return 0, nil
	case "recorded":
		return 1, nil
	}
	if n, ok := strings.CutSuffix(s, "x"); ok {
		if f, err := strconv.ParseFloat(n, 64); err == nil && f > 0 {
			return f, nil
		}
	}
	return 0, usageError("--timing %q: want instant, recorded, or the recorded latency times a factor, like 2x or 0.5x", s)
}

// printServeSummary says on stderr what serve saw go wrong.
// Of missed misses, the first ones (misses) are listed, the rest counted.
func printServeSummary(w io.Writer, misses []mock.Miss, missed int, injected []mock.Injected) {
	fmt.Fprintf(w, "served: %s, %s injected\n", english.Count(int64(missed), "miss"), english.Count(int64(len(injected)), "fault"))
	for _, m := range misses {
		fmt.Fprintf(w, "  miss: %s: %s\n", servedSession(m.Recorded, m.Session), termsafe.String(m.String()))
	}
	if more := missed - len(misses); more > 0 {
		fmt.Fprintf(w, "  … and %d more %s, counted, not kept (--max-misses %d)\n", more, english.Plural(int64(more), "miss"), len(misses))
	}
	for _, i := range injected {
		esc := termsafe.String
		fmt.Fprintf(w, "  fault: %s to %s, recorded seq %d, %s: %s\n", i.Kind, esc(i.Method), i.Seq, servedSession(i.Recorded(), i.Live), esc(i.Detail))
	}
}

// servedSession names a live session the one way in serve's summary, a
// miss's and a fault's alike: the recorded session it was bound to and
// the client's session ("session s1 (client 3f2a…)"; over stdio the
// client is "stdio"; "session (client 3f2a…, bound to no recorded
// session)" when none could be bound).
func servedSession(recorded, live string) string {
	esc := termsafe.String
	switch {
	case recorded == "" && live == "":
		return "no session"
	case recorded == "":
		return "session (client " + esc(live) + ", bound to no recorded session)"
	case live == "":
		return "session " + esc(recorded)
	}
	return "session " + esc(recorded) + " (client " + esc(live) + ")"
}

// serveReport is serve's --report file.
type serveReport struct {
	Tape   string      `json:"tape"`
	Misses []mock.Miss `json:"misses"`
	// MissCount counts every miss; Misses holds the first --max-misses.
	MissCount int         `json:"miss_count"`
	Chaos     *serveChaos `json:"chaos,omitempty"`
}

type serveChaos struct {
	Seed   int64           `json:"seed"`
	Faults []mock.Injected `json:"faults"`
}

func writeServeReport(path, tapePath string, seed int64, chaos bool, misses []mock.Miss, missed int, injected []mock.Injected) error {
	rep := serveReport{Tape: tapePath, Misses: misses, MissCount: missed}
	if rep.Misses == nil {
		rep.Misses = []mock.Miss{}
	}
	if chaos {
		rep.Chaos = &serveChaos{Seed: seed, Faults: injected}
		if rep.Chaos.Faults == nil {
			rep.Chaos.Faults = []mock.Injected{}
		}
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("--report %s: %w", path, err)
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		f.Abort()
		return fmt.Errorf("--report %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--report %s: %w", path, err)
	}
	return nil
}
