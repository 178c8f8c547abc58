package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
	"golang.org/x/term"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// debugFlags are the flags of `replayctl debug`: run's target flags and
// a few of its own.
type debugFlags struct {
	runFlags
	stepHandshake bool
	onError       string
	control       string
}

func (a *app) debugCommand() *cobra.Command {
	var f debugFlags
	cmd := &cobra.Command{
		Use:   "debug TAPE [flags] [-- SERVER_COMMAND ARGS...]",
		Short: "Step through a tape against a target, message by message",
		Long: `Replay a tape under a debugger: the initialize handshake is replayed, then
the replay stops before the first message after it and reads commands
(step, continue, break, seek, list, print, diff, ...; type help).

On a terminal the prompt has line editing and history; from a pipe the
same commands are read one per line, each finishing before the next, and
end of input quits (so does "stop" over --control). The exit status is that
of run: 0 when every answer judged matched the recording, 1 when one did not.

--control unix:PATH serves the same commands as JSON lines (go doc
./controller); a command sent while the handshake is replayed waits for
it to end. The socket is made mode 0600 and, on Linux, refuses clients
of another user; a socket file left by a killed replay is replaced, one a
live replay listens on is refused. A client that does not read its replies
for 5s is hung up on.`,
		Example: `  replayctl debug examples/quickstart.jsonl
  replayctl debug tape.jsonl -- npx -y @modelcontextprotocol/server-everything stdio
  printf 'break tools/call\ncontinue\nprint\nstep\ndiff\n' | replayctl debug tape.jsonl --target http://127.0.0.1:3000/mcp
  replayctl debug tape.jsonl --control unix:/tmp/replay.sock`,
		Args: tapeArgs("debug"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.debug(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.speed, "speed", "fast", "pacing of continue: fast | realtime | Nx (10x) | fixed:50ms | rps:5")
	fl.StringArrayVar(&f.ignore, "ignore", nil, "a path not compared, e.g. result.content[*].annotations (repeatable)")
	fl.StringVar(&f.order, "order", "causal", "causal | sequential | none")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound on every exchange with the target: each answer, each write, dial and handshake")
	fl.IntVar(&f.maxLine, "max-line", 8<<20, "longest tape line accepted, in bytes")
	fl.BoolVar(&f.stepHandshake, "step-handshake", false, "stop before the very first message instead of after the initialize handshake")
	fl.StringVar(&f.onError, "on-error", "pause", "a failed, error or timeout answer: pause (stop there) or continue")
	fl.StringVar(&f.control, "control", "", "serve the control protocol (JSON lines) on unix:/path.sock as well")
	fl.StringVar(&f.configPath, "config", "", "a YAML replay config (transformations, validation, ...); flags override it (default: replayctl.yaml or .replayctl.yaml in the current folder; none: no file)")
	addTargetFlags(fl, &f.runFlags)
	addOutFlag(fl, &f.outs, &f.outBuffer)
	addMetricsFlags(fl, &f.metrics)
	addUIFlags(fl, &f.ui)
	registerValues(cmd, "speed", debugSpeeds...)
	registerValues(cmd, "order", debugOrders...)
	registerValues(cmd, "on-error", debugOnErrors...)
	registerValues(cmd, "validation", validationModes...)
	return cmd
}

func (a *app) debug(cmd *cobra.Command, args []string, f debugFlags) error {
	if err := refuseStdinTape("debug", args[0], "debug reads its commands there"); err != nil {
		return err
	}
	socket := ""
	if f.control != "" {
		var ok bool
		if socket, ok = strings.CutPrefix(f.control, "unix:"); !ok || socket == "" {
			return usageError("--control %q: want unix:/path/to.sock", f.control)
		}
	}
	if f.speed == "stepped" {
		return usageError("--speed stepped: debug steps by itself (step); choose fast, realtime, Nx, fixed:D or rps:N for continue")
	}
	opts, err := a.replayOptions(cmd, args, f.runFlags)
	if err != nil {
		return err
	}
	outs, outOpts, err := a.openOuts(f.outs, f.outBuffer, false)
	if err != nil {
		return err
	}
	defer func() {
		if err := outs.close(); err != nil { // the session's outcome stands; say what was not written
			fmt.Fprintf(a.errOut, "replayctl: %v\n", err)
		}
	}()
	served, metricsOpts, err := a.startMetrics(f.metrics, metricsInfo("debug", args[0], report.DefaultMethodLimit)...)
	if err != nil {
		return err
	}
	defer a.stopMetrics(cmd.Context(), served)
	opts = append(opts, metricsOpts...)
	// debug steps by itself and pauses at errors: a config's stepped speed
	// or stop/retry strategy mean nothing here (replay.Controlled).
	// The debugger reads the verdicts from the replay's event stream.
	j := newJournal()
	opts = append(append(opts, outOpts...), replay.Controlled(), replay.Events(j.consumer()))
	src, err := loadTape(cmd.Context(), args[0])
	if err != nil {
		return err
	}
	view, err := openUI(f.ui, args[0], nil, served.metrics(), metricsInfo("debug", args[0], report.DefaultMethodLimit)...)
	if err != nil {
		return err
	}
	defer view.stop()
	opts = append(opts, view.options()...)
	r, err := replay.New(src, opts...)
	if err != nil {
		return inputError(err)
	}
	a.redact(r.Secrets())
	onErr := f.onError
	if !cmd.Flags().Changed("on-error") && r.OnErrorPolicy() == "continue" {
		onErr = "continue" // the config's
	}
	onError, err := controller.ParseOnError(onErr)
	if err != nil {
		return usageError("--on-error: %w", err)
	}
	// A tape that cannot be read is refused now, before the REPL: else the
	// end of a short input could win the race with the engine's error.
	tr, err := tape.OpenSource(src, tape.WithMaxLine(f.maxLine))
	if err != nil {
		return err
	}
	tr.Close()
	e, speed := r.Engine(), r.Speed()
	c := controller.New(e, controller.WithLogger(a.log), controller.WithOnError(onError), controller.WithSpeed(speed), controller.WithRedactor(a.redactor.Load()))
	e.Attach(c)
	view.start(cmd.Context(), a.stderr, c) // the page steers through the REPL's controller

	in := newLineReader(a.stdin, a.stdout)
	defer in.close()
	// break's and seek's Tab: the tape's methods, found when first asked.
	in.completeWith(sync.OnceValue(func() []string { return tapeMethods(e.Lookup) }))
	out := a.redacting(in.writer()) // the secrets never shown
	d := &debugger{c: c, look: shown(e.Lookup, a.redactor.Load()), j: j, out: out, p: painter(in.terminal && !noColor()), timeout: r.Timeout(), width: outputWidth(a.stdout)}

	// On a terminal Ctrl-C interrupts a running command instead of ending
	// the session (quit, or Ctrl-D, ends it); from a pipe it ends the
	// session.
	parent := cmd.Context()
	if in.terminal {
		parent = context.WithoutCancel(parent)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var ln net.Listener
	if socket != "" {
		// Made before anything is replayed: a socket that cannot be made
		// is bad usage, and nothing has been sent.
		if ln, err = controller.ListenUnix(socket); err != nil {
			return usageError("--control: %w", err)
		}
		defer ln.Close() // Serve closes it too; the second close does nothing
	}
	g, gctx := errgroup.WithContext(ctx)
	// The engine runs until the debugger ends it (quit, end of input, or
	// stop over the control socket): its stop is not an interrupt of the
	// replay, so it is not concluded as one (replay.Run would).
	var rep report.Report
	stopped := false // by stop over the control socket; read after g.Wait
	g.Go(func() error {
		err := c.Run(gctx)
		if err == nil { // Stop: nothing else calls it
			stopped = true
			return errControlStop // ends the REPL and the engine
		}
		return err
	})
	g.Go(func() error {
		var err error
		rep, err = e.Run(gctx)
		return err
	})
	// ready starts serving the control socket, once the REPL has replayed
	// the handshake: a command sent meanwhile waits in the socket (its
	// client is connected, its line buffered) rather than racing the
	// handshake's steps ("a step is already in progress").
	ready := func() {}
	if ln != nil {
		fmt.Fprintf(a.errOut, "control socket: %s\n", socket)
		ready = func() {
			// Serve ends when the controller does, which every end of
			// the session brings about, after the replies under way
			// (the reply to a stop among them; each write is bounded by
			// the write timeout); at once only on a signal. Not with
			// gctx or ctx: their end would cut the reply to a stop.
			g.Go(func() error { return controller.Serve(cmd.Context(), c, ln) })
		}
	}
	if in.terminal {
		g.Go(func() error { return interrupts(gctx, c, cancel) })
	}

	replErr := d.loop(gctx, in, f.stepHandshake, ready)
	engineFirst := gctx.Err() != nil && ctx.Err() == nil
	cancel()
	runErr := g.Wait()
	if stopped {
		// stop over the control socket ends the session as quit does:
		// the summary, and the replay's own exit status.
		if errors.Is(runErr, errControlStop) || errors.Is(runErr, engine.ErrStopped) {
			runErr, engineFirst = nil, false
		}
		if stopErr(replErr) != nil { // a command cut short by the stop
			replErr = nil
		}
	}
	switch {
	case engineFirst && runErr != nil:
		return runErr // the target died, or a bad tape
	case cmd.Context().Err() != nil && !in.terminal:
		return fmt.Errorf("interrupted: %w", cmd.Context().Err())
	case replErr != nil:
		return replErr
	}
	fmt.Fprintf(out, "%s\n", summaryLine(rep))
	if err := view.finish(&rep); err != nil {
		return err
	}
	defer view.wait(cmd.Context(), a.stderr) // after the summary
	if !rep.Passed() {
		return &exitError{code: exitFailed, err: errReported}
	}
	return nil
}

// errControlStop ends a debug session whose controller was stopped over
// the control socket.
var errControlStop = errors.New("stopped over the control socket")

// loop runs the handshake, calls ready, and then runs the commands,
// until quit, end of input or the end of ctx. A command's error is shown
// and the session goes on; only a stopped controller or ctx ends it
// early (ready is then not called).
func (d *debugger) loop(ctx context.Context, in *lineReader, stepHandshake bool, ready func()) error {
	if err := d.c.Start(ctx); err != nil {
		return stopErr(err)
	}
	if m, ok := d.look(0); ok {
		d.defaultSession = m.Session
	}
	if !stepHandshake {
		if err := d.handshake(ctx); err != nil {
			if stop := stopErr(err); stop != nil {
				return stop
			}
			d.printf("error: %v\n", err)
		}
	} else if st, err := d.c.Status(ctx); err == nil {
		d.where(st)
	}
	ready()
	for {
		line, err := in.readLine(ctx)
		if err != nil {
			return nil // end of input, or ctx: quit
		}
		c, arg, err := parseCommand(line)
		if err != nil {
			d.printf("error: %v\n", err)
			continue
		}
		if c == nil {
			continue
		}
		err = c.run(d, ctx, arg)
		if errors.Is(err, errQuit) {
			return nil
		}
		if stop := stopErr(err); stop != nil {
			return stop
		}
		if err != nil {
			d.printf("error: %v\n", err)
		}
	}
}

// stopErr keeps the errors that end the session: the controller or the
// replay is gone (the engine's own error then says why).
func stopErr(err error) error {
	if errors.Is(err, controller.ErrStopped) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// handshake steps through the initialize request and the initialized
// notification of the tape's first session, and stops before the message
// after them. A tape without them stops before its first message.
func (d *debugger) handshake(ctx context.Context) error {
	last := int64(-1)
	for s := int64(0); s < 10000; s++ {
		m, ok := d.look(s)
		if !ok {
			break
		}
		if m.Dir == report.DirC2S && m.Method == mcp.NotificationInitialized {
			last = s
			break
		}
	}
	var shown []report.Result
	for {
		st, err := d.c.Status(ctx)
		if err != nil {
			return err
		}
		m, ok := d.current(st)
		if !ok || m.Seq > last || st.State != controller.Paused || strings.HasPrefix(st.Reason, "error") {
			return d.settle(ctx, shown)
		}
		rs, err := d.c.Step(ctx, 1)
		for _, r := range rs {
			d.show(r)
		}
		shown = append(shown, rs...)
		if err != nil {
			return err
		}
	}
}

// interrupts turns Ctrl-C (SIGINT) into an interrupt while a command
// runs on a terminal (continue pauses; a step returns at once, even while
// it waits for an answer), and SIGTERM into the end of the session. At the
// prompt Ctrl-C is a key that drops the line (lineReader).
func interrupts(ctx context.Context, c *controller.Controller, cancel func()) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-sig:
			if s != os.Interrupt {
				cancel()
				return nil
			}
			_ = c.Interrupt(ctx) // continue's WaitStop and step's Step then return
		}
	}
}

// shown is lookup with what no one may see hidden, for the debugger's
// list and print: the values of credential members and headers masked
// (tape.Mask, tape.MaskHeaders), the secrets redacted. The results the
// engine gives have had the same done already.
func shown(lookup func(int64) (controller.Msg, bool), rd *tape.Redactor) func(int64) (controller.Msg, bool) {
	return func(seq int64) (controller.Msg, bool) {
		m, ok := lookup(seq)
		m.Raw = rd.Bytes(tape.Mask(m.Raw))
		if m.HTTP != nil {
			h := *m.HTTP
			h.Headers = tape.MaskHeaders(h.Headers)
			m.HTTP = &h
		}
		return m, ok
	}
}

// outputWidth returns the width of w now: the terminal's when w is one,
// else defaultWidth.
func outputWidth(w io.Writer) func() int {
	f, ok := w.(*os.File)
	return func() int {
		if ok {
			if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
				return cols
			}
		}
		return defaultWidth
	}
}

// summaryLine is the last line of a session.
func summaryLine(r report.Report) string {
	v := r.Validation
	s := fmt.Sprintf("summary: %d checked, %d passed, %d failed", v.Checked, v.Passed, v.Failed)
	if n := r.Performance.Errors + r.Performance.Timeouts; n > 0 {
		s += fmt.Sprintf(", %d errors or timeouts", n)
	}
	return s
}
