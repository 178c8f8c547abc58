package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// runFlags are the flags of `replayctl run`.
type runFlags struct {
	speed       string
	ignore      []string
	reports     []string
	output      string
	order       string
	timeout     time.Duration
	maxInflight int
	sessions    int
	ramp        time.Duration
	maxLine     int
	timeline    int
	mockTape    string
	target      string
	headers     []string
	env         []string
	cwd         string
	legacySSE   bool
	onError     string
	maxRetries  int
	validNotes  bool
	thresholds  []string
	configPath  string
	chaos       string
	seed        int64
	chaosFrom   string
}

func (a *app) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run TAPE [flags] [-- SERVER_COMMAND ARGS...]",
		Short: "Replay a tape against a target and check every answer",
		Long: `Replay a tape against a target and check every answer against the recording.

With no target, the built-in mock answers each request from the tape itself.`,
		Example: `  replayctl run examples/quickstart.jsonl
  replayctl run examples/quickstart.jsonl --speed 10x --sessions 50 --report out.json
  replayctl run recorded.jsonl --speed fast -- node my-server.js
  replayctl run recorded.jsonl --target http://127.0.0.1:3000/mcp --header "Authorization:Bearer ${TOKEN}"`,
		Args: tapeArgs("run"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.run(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.speed, "speed", "realtime", "realtime | fast | stepped | Nx (10x) | fixed:50ms | rps:500")
	fl.StringArrayVar(&f.ignore, "ignore", nil, "a path not compared, e.g. result.content[*].annotations or **.timestamp (repeatable)")
	fl.StringArrayVar(&f.reports, "report", nil, "write the report to FILE; format by extension: .json, .xml (JUnit), .html (repeatable)")
	fl.StringVar(&f.chaos, "chaos", "", "inject seeded faults, kind=probability,…: e.g. malformed=0.05,timeout=0.02 (kinds: malformed, invalid, unknown-method, bad-params, duplicate-id, duplicate, drop, reorder, cancel, disconnect, slow-write, burst, timeout, network-error, invalid-response, error-response)")
	fl.Int64Var(&f.seed, "seed", 0, "the chaos seed: the same seed gives the same faults (random, and printed, when not given)")
	fl.StringVar(&f.chaosFrom, "chaos-from", "", "replay exactly the faults of an earlier run's JSON report")
	fl.StringVar(&f.configPath, "config", "", "a YAML replay config (replayctl config example); flags override it")
	fl.StringArrayVar(&f.thresholds, "threshold", nil, `a condition the run must meet, k6-style: "p99<200ms", "error_rate<1%", "validation_failed==0", "throughput>500" (repeatable; exit 1 if one fails)`)
	fl.StringVarP(&f.output, "output", "o", "text", "what goes to stdout: text or json")
	fl.StringVar(&f.order, "order", "causal", "causal (wait for the answers recorded before each message) | sequential | none | random (causal, each run of client messages shuffled by --seed)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound on every exchange with the target: each answer (then it is cancelled), each write, dial and handshake")
	fl.IntVar(&f.maxInflight, "max-inflight", 1000, "requests in flight at most, per session")
	fl.IntVar(&f.sessions, "sessions", 1, "virtual copies of each recorded session, each on its own connection (load)")
	fl.DurationVar(&f.ramp, "ramp", 0, "spread the virtual sessions' starts over this time (realtime and Nx)")
	fl.IntVar(&f.maxLine, "max-line", 8<<20, "longest tape line accepted, in bytes")
	fl.IntVar(&f.timeline, "timeline-limit", 10000, "messages kept in the report's timeline")
	fl.StringVar(&f.onError, "on-error", "continue", "at a failed or unanswered message: continue, stop the replay there, or retry (transient target errors, up to --max-retries, then continue); pause: replayctl debug")
	fl.BoolVar(&f.validNotes, "validate-notifications", false, "compare the server's notifications with the recorded ones (by method, in order)")
	fl.IntVar(&f.maxRetries, "max-retries", 3, "retries of a message the target asked to have again (HTTP 408, 429, 5xx; honours Retry-After)")
	addTargetFlags(fl, &f)
	return cmd
}

// addTargetFlags registers the flags that choose the target; `run` and
// `debug` share them (and a.target reads them).
func addTargetFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.StringVar(&f.target, "target", "", "a Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp")
	fl.StringArrayVar(&f.headers, "header", nil, `an HTTP header "K:V" sent on every request; values may use ${ENV} (repeatable)`)
	fl.BoolVar(&f.legacySSE, "legacy-sse", false, "the --target speaks the 2024-11-05 HTTP+SSE transport (without it, replayctl asks the endpoint)")
	fl.StringArrayVar(&f.env, "env", nil, "K=V added to the server command's environment (repeatable)")
	fl.StringVar(&f.cwd, "cwd", "", "working directory of the server command")
	fl.StringVar(&f.mockTape, "mock-tape", "", "the built-in mock answers from this tape instead of TAPE (e.g. a newer recording)")
}

func (a *app) run(cmd *cobra.Command, args []string, f runFlags) error {
	file, err := loadConfig(cmd, &f)
	if err != nil {
		return err
	}
	speed, err := scheduler.Parse(f.speed)
	if err != nil {
		return usageError("--speed: %w", err)
	}
	if f.output != "text" && f.output != "json" {
		return usageError("-o %q: want text or json", f.output)
	}
	for _, p := range f.reports {
		if err := report.CheckPath(p); err != nil {
			return usageError("--report: %w", err)
		}
	}
	thresholds, err := parseThresholds(f.thresholds)
	if err != nil {
		return err
	}
	switch f.onError {
	case "continue", "stop":
	case "retry": // what the target asks to have again is retried; then go on
		f.onError, f.maxRetries = "continue", max(f.maxRetries, 1)
	case "pause":
		return usageError("--on-error pause needs someone to resume: use replayctl debug (where it is the default)")
	default:
		return usageError("--on-error %q: want continue, stop or retry", f.onError)
	}
	switch {
	case f.timeline < 0:
		return usageError("--timeline-limit %d: want 0 or more", f.timeline)
	case f.sessions > maxSessions:
		return usageError("--sessions %d: at most %d virtual sessions per replayctl process", f.sessions, maxSessions)
	}
	if f.sessions < 1 || f.ramp < 0 {
		return usageError("--sessions %d --ramp %s: want 1 or more sessions and a ramp of 0 or more", f.sessions, f.ramp)
	}
	if f.maxInflight < 1 {
		return usageError("--max-inflight %d: want 1 or more", f.maxInflight)
	}
	cfg, err := a.engineConfig(cmd, args, f, speed)
	if err != nil {
		return err
	}
	cfg.Sessions, cfg.Ramp = f.sessions, f.ramp
	cfg.OnError = engine.OnError(f.onError)
	cfg.ValidateNotifications = f.validNotes
	cfg.MaxRetries = retries(f.maxRetries)
	cfg.TimelineLimit = f.timeline
	if err := a.configure(&cfg, f, file); err != nil {
		return err
	}
	if cfg.Chaos, err = a.chaosPlan(cmd, f, file); err != nil {
		return err
	}
	if cfg.Order == engine.OrderRandom { // seeded: the same seed, the same order
		switch {
		case cmd.Flags().Changed("seed"):
			cfg.OrderSeed = f.seed
		case cfg.Chaos != nil:
			cfg.OrderSeed = cfg.Chaos.Seed()
		default:
			cfg.OrderSeed = chaos.RandomSeed()
			fmt.Fprintf(a.stderr, "order: seed %d (repeat this order with --seed %d)\n", cfg.OrderSeed, cfg.OrderSeed)
		}
	}
	if speed.Mode == scheduler.Stepped {
		cfg.Step = a.stepTokens()
	}
	e, err := engine.New(cfg)
	if err != nil {
		return usageError("%w", err)
	}
	rep, runErr := e.Run(cmd.Context())
	if runErr != nil && rep.Summary.Tape == "" {
		return runErr // nothing was replayed: a bad tape or config
	}
	interrupted := runErr != nil && cmd.Context().Err() != nil
	switch {
	case interrupted:
		rep.Abort("interrupted")
	case runErr != nil && !errors.Is(runErr, engine.ErrStoppedOnError):
		rep.Abort(runErr.Error())
	}
	rep.ApplyThresholds(thresholds)
	// The summary first: a report file that cannot be written must not
	// lose what a long replay found.
	out := cmd.OutOrStdout()
	var buf bytes.Buffer // rendered whole, so that redaction sees every secret
	if f.output == "json" {
		err = rep.WriteJSON(&buf)
	} else {
		err = rep.WriteText(&buf, isTerminal(out))
	}
	if err != nil {
		return err
	}
	if _, err := out.Write(a.redactor.Bytes(buf.Bytes())); err != nil {
		return err
	}
	var writeErr error
	for _, p := range f.reports {
		if err := report.WriteFile(p, rep, a.redactor); err != nil {
			writeErr = errors.Join(writeErr, err)
		}
	}
	switch {
	case interrupted:
		return &exitError{code: exitInterrupted, err: errors.New("interrupted; the report covers what was replayed")}
	case errors.Is(runErr, engine.ErrStoppedOnError), errors.Is(runErr, engine.ErrStepsEnded):
		return &exitError{code: exitFailed, err: errors.Join(runErr, writeErr)}
	case runErr != nil:
		return errors.Join(runErr, writeErr)
	case writeErr != nil:
		return fmt.Errorf("write report: %w", writeErr)
	case !rep.Passed():
		return errReported
	}
	return nil
}

// target sets the dialer: a server command, an HTTP endpoint, or a mock.
func (a *app) target(cfg *engine.Config, f runFlags, command []string) error {
	chosen := 0
	for _, set := range []bool{len(command) > 0, f.target != "", f.mockTape != ""} {
		if set {
			chosen++
		}
	}
	if chosen > 1 {
		return usageError("run: give one target: a server command after --, --target URL, or --mock-tape FILE")
	}
	if (len(f.env) > 0 || f.cwd != "") && len(command) == 0 {
		return usageError("run: --env and --cwd are for a server command (after --)")
	}
	if (len(f.headers) > 0 || f.legacySSE) && f.target == "" {
		return usageError("run: --header and --legacy-sse are for an HTTP --target")
	}
	if f.cwd != "" {
		if fi, err := os.Stat(f.cwd); err != nil || !fi.IsDir() {
			return usageError("--cwd %s: no such folder", f.cwd)
		}
	}
	for _, kv := range f.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return usageError("--env %q: want K=V", kv)
		}
	}
	switch {
	case len(command) > 0:
		cfg.Dialer = transport.Stdio{Command: command, Env: f.env, Dir: f.cwd, Logger: a.log.With().Str("server", command[0]).Logger()}
		cfg.Target = strings.Join(command, " ")
	case f.target != "":
		if err := checkTarget(f.target); err != nil {
			return err
		}
		header := http.Header{}
		for _, h := range f.headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return usageError("--header %q: want K:V, e.g. \"Authorization:Bearer ${TOKEN}\"", h)
			}
			if _, err := transport.ExpandHeader(v); err != nil {
				return usageError("--header %s: %w", strings.TrimSpace(k), err)
			}
			header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		client := transport.NewClient(f.maxInflight)
		if f.legacySSE {
			cfg.Dialer = transport.LegacySSE{URL: f.target, Header: header, Client: client, Logger: a.log}
		} else { // Streamable HTTP, or HTTP+SSE if the endpoint speaks that
			cfg.Dialer = &transport.Auto{URL: f.target, Header: header, Client: client, Logger: a.log}
		}
		cfg.Target = f.target
	case f.mockTape != "":
		cfg.Dialer = mock.New(f.mockTape, mock.WithTapeOptions(cfg.TapeOptions...))
		cfg.Target = "mock of " + f.mockTape
	}
	return nil
}

// stepTokens releases one message per line read from stdin (Enter).
func (a *app) stepTokens() <-chan struct{} {
	fmt.Fprintln(a.stderr, "stepped: press Enter to send each message; end of input stops")
	ch := make(chan struct{})
	go func() { // lives as long as the process: a blocked read cannot be cancelled
		defer close(ch)
		sc := bufio.NewScanner(a.stdin)
		for sc.Scan() {
			ch <- struct{}{}
		}
	}()
	return ch
}

// retries maps --max-retries to engine.Config.MaxRetries, where 0 means
// the default and a negative number none.
func retries(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// parseThresholds reads --threshold values (and the config's thresholds).
func parseThresholds(exprs []string) ([]report.Threshold, error) {
	ts := make([]report.Threshold, 0, len(exprs))
	for _, x := range exprs {
		t, err := report.ParseThreshold(x)
		if err != nil {
			return nil, usageError("--threshold %q: %w", x, err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// tapeArgs checks the arguments of run and debug: one TAPE, then perhaps
// a server command after --.
func tapeArgs(command string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageError("%s: missing TAPE (replayctl %s TAPE [flags])", command, command)
		}
		if cmd.ArgsLenAtDash() > 1 || (cmd.ArgsLenAtDash() < 0 && len(args) > 1) {
			return usageError("%s: one TAPE at a time; a server command goes after --", command)
		}
		return nil
	}
}

// maxSessions bounds --sessions: each virtual session has a connection.
const maxSessions = 100_000

// checkTarget refuses a --target that cannot be an HTTP endpoint, before
// anything is replayed.
func checkTarget(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil && !strings.Contains(raw, "://"):
		return usageError("--target %q: want a URL like http://%s", raw, raw)
	case err != nil:
		return usageError("--target %q: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Host == "" && u.Opaque != "" || !strings.Contains(raw, "://") {
			return usageError("--target %q: want a URL like http://%s", raw, raw)
		}
		return usageError("--target %q: want an http:// or https:// URL", raw)
	case u.Hostname() == "":
		return usageError("--target %q: the URL has no host", raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return usageError("--target %q: port %s is not a port number", raw, p)
		}
	}
	return nil
}

// engineConfig builds what run and debug share of engine.Config from their
// flags: the tape, pacing, order, timeout, ignored paths, and the target
// (a server command after --, --target, or the built-in mock).
func (a *app) engineConfig(cmd *cobra.Command, args []string, f runFlags, speed scheduler.Speed) (engine.Config, error) {
	order, err := engine.ParseOrder(f.order)
	if err != nil {
		return engine.Config{}, usageError("--order: %w", err)
	}
	switch {
	case f.timeout <= 0:
		return engine.Config{}, usageError("--timeout %s: want a positive duration, e.g. 30s", f.timeout)
	case f.maxLine <= 0:
		return engine.Config{}, usageError("--max-line %d: want a positive number of bytes", f.maxLine)
	}
	var command []string
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		command = args[dash:]
	}
	cfg := engine.Config{
		Tape:        args[0],
		TapeOptions: []tape.Option{tape.WithMaxLine(f.maxLine)},
		Speed:       speed,
		Ignore:      f.ignore,
		Order:       order,
		Timeout:     f.timeout,
		MaxInflight: f.maxInflight,
		Logger:      a.log,
	}
	return cfg, a.target(&cfg, f, command)
}
