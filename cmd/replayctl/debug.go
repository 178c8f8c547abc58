package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/debug"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
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
The tape is read through first: a bad line anywhere in it is exit 2, naming
the line, before anything is sent.

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
	addKnob(fl, "debug", "ask-wait", &f.askWait)
	f.maxLine = 8 << 20
	fl.Var((*byteSize)(&f.maxLine), "max-line", "longest tape line accepted, e.g. 16MiB")
	addKnob(fl, "debug", "spin", &f.spin)
	addKnob(fl, "debug", "gc-headroom", &f.gcHeadroom)
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
	registerValues(cmd, "validation", validationModes(false)...)
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
	opts = append(append(opts, metricsOpts...), outOpts...)
	// --on-error given overrides the config's strategy; else the config's
	// continue holds, and pause is the default (debug.WithReplay).
	if _, err := controller.ParseOnError(f.onError); err != nil {
		return usageError("--%w", err) // "on-error \"stop\": want …"
	}
	if cmd.Flags().Changed("on-error") {
		opts = append(opts, replay.OnError(replay.ErrorPolicy(f.onError)))
	}
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
	d := &debugger{}
	dopts := []debug.Option{debug.WithReplay(opts...), debug.MaxLine(f.maxLine), debug.OnShow(d.show)}
	if f.stepHandshake {
		dopts = append(dopts, debug.StopAtStart())
	}
	if socket != "" {
		// Made before anything is replayed: a socket that cannot be made
		// is bad usage, and nothing has been sent.
		ln, err := controller.ListenUnix(socket)
		if err != nil {
			return usageError("--control: %w", err)
		}
		defer ln.Close() // the session closes it too; the second close does nothing
		dopts = append(dopts, debug.WithControl(ln))
	}
	s, err := debug.New(src, dopts...)
	if err != nil {
		return inputError(err)
	}
	a.redact(s.Replay().Secrets())
	c := s.Controller()
	view.start(cmd.Context(), a.stderr, c) // the page steers through the REPL's controller

	in := newLineReader(a.stdin, a.stdout)
	defer in.close()
	// break's and seek's Tab: the tape's methods, found when first asked.
	in.completeWith(sync.OnceValue(s.Methods))
	out := a.redacting(in.writer()) // the secrets never shown
	d.s, d.out, d.p, d.width = s, out, painter(in.terminal && !noColor()), outputWidth(a.stdout)

	// On a terminal Ctrl-C interrupts a running command instead of ending
	// the session (quit, or Ctrl-D, ends it); from a pipe it ends the
	// session.
	parent := cmd.Context()
	if in.terminal {
		parent = context.WithoutCancel(parent)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	if socket != "" {
		fmt.Fprintf(a.errOut, "control socket: %s\n", socket)
	}
	if in.terminal {
		sigCtx, sigStop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = interrupts(sigCtx, c, cancel)
		}()
		defer func() { sigStop(); <-done }()
	}
	rep, err := s.Run(ctx, func(ctx context.Context) error { return d.loop(ctx, in) })
	var replayErr *debug.ReplayError
	switch {
	case errors.As(err, &replayErr):
		return replayErr.Err // the target died, or a bad tape
	case cmd.Context().Err() != nil && !in.terminal:
		return interrupted("")
	case err != nil:
		return err
	}
	if rep == nil {
		rep = &report.Report{}
	}
	fmt.Fprintf(out, "%s\n", summaryLine(*rep))
	if err := view.finish(rep); err != nil {
		return err
	}
	defer view.wait(cmd.Context(), a.stderr) // after the summary
	if !rep.Passed() {
		return &exitError{code: exitFailed, err: errReported}
	}
	return nil
}

// loop begins the session (the handshake), and then runs the commands,
// until quit, end of input or the end of ctx. A command's error is shown
// and the session goes on; only the session's end (debug.Ended) ends it
// early.
func (d *debugger) loop(ctx context.Context, in *lineReader) error {
	p, err := d.s.Begin(ctx)
	switch {
	case debug.Ended(err):
		return err
	case err != nil:
		d.printf("error: %v\n", err)
	default:
		d.where(p)
	}
	for {
		line, err := in.readLine(ctx)
		if err != nil {
			return nil // end of input, or ctx: quit
		}
		c, err := debug.Parse(line)
		if err != nil {
			d.printf("error: %v\n", err)
			continue
		}
		if c == nil {
			continue
		}
		err = d.run(ctx, c)
		if errors.Is(err, errQuit) {
			return nil
		}
		if debug.Ended(err) {
			return err
		}
		if err != nil {
			d.printf("error: %v\n", err)
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

// outputWidth returns the width of w now: the terminal's when w is one,
// else defaultWidth.
func outputWidth(w io.Writer) func() int {
	f, ok := w.(*os.File)
	return func() int {
		cols := 0
		if ok && withFd(f, func(fd uintptr) {
			if c, _, err := term.GetSize(int(fd)); err == nil {
				cols = c
			}
		}) && cols > 0 {
			return cols
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
