package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/internal/termsafe"
	"github.com/replayctl/replayctl/replay"
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
	code := runMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runApp(ctx, &app{stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

// runMain is run as the process's own main: a second signal while a
// command stops may end the process (see forceOnSecondSignal).
func runMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runApp(ctx, &app{stdin: stdin, stdout: stdout, stderr: stderr, isMain: true}, args)
}

func runApp(ctx context.Context, app *app, args []string) int {
	app.out, app.errOut = app.redacting(app.stdout), app.redacting(urlMasking{app.stderr})
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetIn(app.stdin)
	root.SetOut(app.out)
	root.SetErr(app.errOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(ctx, err)
	if (code != exitFailed || !errors.Is(err, errReported)) && !errors.Is(err, errSaidByRunner) {
		fmt.Fprintf(app.errOut, "replayctl: %v\n", err)
	}
	return code
}

// errReported is a failure already shown in the report (validation).
var errReported = errors.New("the replay did not pass")

// errSaidByRunner is the failure of a shard of --local-shards that its
// runner says once for all the shards (a bad tape), from their reports:
// the shard says nothing.
var errSaidByRunner = errors.New("a local shard's bad input: its runner says why")

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
	stdout, stderr io.Writer // the process's own, to ask if they are terminals
	// out and errOut are stdout and stderr with the secrets hidden: every
	// output goes through them (see redacting).
	out, errOut io.Writer
	logLevel    string
	logFormat   string
	log         zerolog.Logger
	// redactor hides the secrets of the replay (replay.Replay.Secrets)
	// from the moment they are known; nil before.
	redactor atomic.Pointer[tape.Redactor]
	// checkRun, when set, is called by run with the replay its flags
	// built, instead of running it (kube render checks the shards' flags
	// so).
	checkRun func(*replay.Replay) error
	// isMain is set in the process's own app (not in tests that call
	// run): it may end the process on a second signal.
	isMain bool
}

// redact hides secrets from now on in everything written through
// a.redacting: stdout, stderr, the logs, the debugger.
func (a *app) redact(secrets []string) { a.redactor.Store(tape.RedactorOf(secrets)) }

// redacting wraps w so that each Write goes through the app's redactor
// as it is then. Each Write must be a whole record (a line, a rendered
// report): a secret split across two is not seen.
func (a *app) redacting(w io.Writer) io.Writer { return redactingWriter{a: a, w: w} }

type redactingWriter struct {
	a *app
	w io.Writer
}

func (rw redactingWriter) Write(p []byte) (int, error) {
	if _, err := rw.w.Write(rw.a.redactor.Load().Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// urlMasking masks the credentials of every URL written to w
// (tape.MaskURLs): an upstream's password or api_key in a banner, a log
// line or an error. Each Write must be a whole record, as for
// redactingWriter. Not for stdout, which carries the data served.
type urlMasking struct{ w io.Writer }

func (u urlMasking) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("://")) {
		if s := tape.MaskURLs(string(p)); s != string(p) {
			if _, err := io.WriteString(u.w, s); err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	if _, err := u.w.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
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
       replayed, convert leaves OUT untouched (in debug on a terminal,
       Ctrl-C interrupts a continue or a step and never ends the session;
       SIGTERM does). The servers, serve and record --listen, are the
       exception: a signal is their normal end, exit 0 (1 with serve
       --strict after a miss; a second signal while they stop: 130); and
       run --ui-hold, whose replay is over when Ctrl-C closes the page,
       exits with the replay's verdict`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setupLog()
		},
	}
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&a.logFormat, "log-format", "console", "log format on stderr: console or json")
	registerValues(root, "log-level", logLevelNames...)
	registerValues(root, "log-format", logFormatsNames...)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(a.runCommand(), a.inspectCommand(), a.convertCommand(), a.debugCommand(), a.configCommand(), a.versionCommand())
	root.AddCommand(a.recordCommand(), a.diffCommand(), a.importCommand(), a.exportCommand(), a.redactCommand(), a.contractCommand())
	root.AddCommand(a.serveCommand(), a.mergeCommand(), a.coordinateCommand(), a.reportCommand(), a.gendocsCommand(), a.historyCommand())
	root.AddCommand(a.compareCommand(), a.shrinkCommand(), a.kubeCommand())
	guardDashValues(root)
	root.Version = readVersion().String()
	root.SetVersionTemplate("replayctl {{.Version}}\n")
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
	// Logs go through errOut, so that secrets a config brings in later
	// are redacted from them (see app.redact). Each event is one Write.
	var w io.Writer
	switch a.logFormat {
	case "json":
		w = a.errOut
	case "console":
		// Messages may quote a client's or a tape's text (a method
		// name): their control characters are escaped. Field values are
		// quoted by zerolog when they hold any.
		w = zerolog.ConsoleWriter{Out: a.errOut, NoColor: !colorOn(a.stderr), TimeFormat: "15:04:05.00",
			FormatMessage: func(i any) string {
				if i == nil {
					return ""
				}
				return termsafe.String(fmt.Sprint(i))
			}}
	default:
		return usageError("--log-format %q: want console or json", a.logFormat)
	}
	a.log = zerolog.New(w).Level(level)
	if a.logFormat == "console" {
		// The console shows hundredths of a second: the time field
		// carries them (zerolog's own format, RFC 3339, has whole
		// seconds, which the console would show as .00).
		a.log = a.log.Hook(fineTime{})
	} else {
		a.log = a.log.With().Timestamp().Logger()
	}
	return nil
}

// fineTime writes an event's time with its fraction of a second, in the
// layout zerolog's console reads it back with (RFC 3339 readers take a
// fraction after the seconds).
type fineTime struct{}

func (fineTime) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	e.Str(zerolog.TimestampFieldName, zerolog.TimestampFunc().Format(time.RFC3339Nano))
}

// colorOn says whether output to w may be coloured: w is a terminal and
// NO_COLOR (https://no-color.org) is not set to a non-empty value.
func colorOn(w io.Writer) bool { return !noColor() && isTerminal(w) }

// noColor reports NO_COLOR set to a non-empty value: no colour anywhere.
func noColor() bool { return os.Getenv("NO_COLOR") != "" }
