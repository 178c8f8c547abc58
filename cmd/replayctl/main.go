package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// Exit statuses, as DESIGN.md promises them.
const (
	exitOK          = 0
	exitFailed      = 1
	exitBadInput    = 2
	exitTarget      = 3
	exitInterrupted = 130
)

// exitError carries the status a failure should end the process with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks bad usage: exit status 2.
func usageError(format string, a ...any) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, a...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(ctx, err)
	if code != exitFailed || !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "replayctl: %v\n", err)
	}
	return code
}

// errReported is a failure already shown in the report (validation).
var errReported = errors.New("the replay did not pass")

func exitCode(ctx context.Context, err error) int {
	var ee *exitError
	var te *tape.Error
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &te):
		return exitBadInput
	case errors.Is(err, engine.ErrTarget):
		return exitTarget
	case ctx.Err() != nil:
		return exitInterrupted
	case errors.Is(err, errReported):
		return exitFailed
	}
	// cobra's own errors: unknown command or flag, wrong arguments.
	return exitBadInput
}

// app holds what every command shares.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	logLevel       string
	logFormat      string
	log            zerolog.Logger
	logSink        *sink
	redactor       *report.Redactor // hides the config's secrets in all output
}

// sink is the writer under the logger; redact swaps what it writes to.
type sink struct{ w io.Writer }

func (s *sink) Write(p []byte) (int, error) { return s.w.Write(p) }

// redact hides secrets from now on in the logs, and in what output
// writes through a.redactor.
func (a *app) redact(secrets []string) {
	a.redactor = report.NewRedactor(secrets)
	if a.logSink != nil {
		a.logSink.w = a.redactor.Writer(a.stderr)
	}
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "replayctl",
		Short: "Replay recorded MCP sessions against live targets",
		Long: `replayctl replays recorded Model Context Protocol sessions (JSON-RPC 2.0)
against a live MCP server, or against a built-in mock that answers from the
tape itself, at a chosen speed, and checks every answer against the recording.

Exit status:
  0    all good
  1    the replay did not pass: validation failures, failed thresholds
  2    bad usage or bad input (flag, config, tape, --report path), named
  3    the target failed
  130  interrupted by Ctrl-C (SIGINT) or SIGTERM: the command stops
       promptly; run still prints and writes the report of what was
       replayed, convert leaves OUT untouched (in debug's prompt on a
       terminal, Ctrl-C pauses a continue; SIGTERM ends the session)`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setupLog()
		},
	}
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&a.logFormat, "log-format", "console", "log format on stderr: console or json")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError("%w (see --help)", err)
	})
	root.AddCommand(a.runCommand(), a.inspectCommand(), a.convertCommand(), a.debugCommand(), a.configCommand())
	return root
}

// logLevels are the levels --log-level takes. zerolog knows more (trace,
// fatal, panic, disabled, numbers); replayctl logs nothing at them, so they
// are refused rather than taken silently.
var logLevels = map[string]zerolog.Level{
	"debug": zerolog.DebugLevel, "info": zerolog.InfoLevel, "warn": zerolog.WarnLevel, "error": zerolog.ErrorLevel,
}

func (a *app) setupLog() error {
	level, ok := logLevels[a.logLevel]
	if !ok {
		return usageError("--log-level %q: want debug, info, warn or error (debug says the most)", a.logLevel)
	}
	// Logs go through the sink, so that secrets a config brings in later
	// can be redacted from them (see app.redact).
	a.logSink = &sink{w: a.stderr}
	var w io.Writer
	switch a.logFormat {
	case "json":
		w = a.logSink
	case "console":
		w = zerolog.ConsoleWriter{Out: a.logSink, NoColor: !isTerminal(a.stderr)}
	default:
		return usageError("--log-format %q: want console or json", a.logFormat)
	}
	a.log = zerolog.New(w).Level(level).With().Timestamp().Logger()
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
