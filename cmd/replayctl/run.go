package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/coord"
	"github.com/replayctl/replayctl/kube"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// runFlags are the flags of `replayctl run`.
type runFlags struct {
	speed       string
	ignore      []string
	reports     []string
	output      string
	order       string
	timeout     time.Duration
	askWait     time.Duration
	maxInflight int
	spin        time.Duration
	gcHeadroom  byteSizeOrZero
	sessions    int
	ramp        time.Duration
	shard       string        // --shard I/N
	shards      int           // --shards N (the index from the environment)
	coordinator string        // --coordinator URL
	coordWait   time.Duration // --coordinator-wait
	coord       coordFlags
	localShards int    // --local-shards
	shardDir    string // --shard-reports
	maxLine     int
	maxDoc      int
	maxMessage  byteSize
	timeline    int
	mockTape    string
	target      string
	headers     []string
	env         []string
	cwd         string
	legacySSE   bool
	follow      bool
	httpClient  string
	httpSpare   int
	onError     string
	validation  string
	maxRetries  int
	validNotes  bool
	thresholds  []string
	configPath  string
	chaos       string
	seed        int64
	chaosFrom   string
	quiet       bool
	verbose     bool
	outs        []string // --out
	outBuffer   int      // --out-buffer

	methodLimit      int  // --method-limit
	includeHandshake bool // --include-handshake

	history historyFlags // --history and its gates (run only)

	metrics  metricsFlags  // --metrics, --metrics-linger
	rerecord rerecordFlags // --rerecord OUT and its flags (run only)
	contract string        // --contract FILE (run only)
	ui       uiFlags       // --ui and its bounds
}

func (a *app) runCommand() *cobra.Command {
	cmd, _ := a.newRunCommand()
	return cmd
}

// newRunCommand is the run command and the flags it parses into (kube
// render takes them for the shards).
func (a *app) newRunCommand() (*cobra.Command, *runFlags) {
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
	addKnob(fl, "run", "speed", &f.speed)
	addKnob(fl, "run", "ignore", &f.ignore)
	fl.StringArrayVar(&f.reports, "report", nil, "write the report to FILE; format by extension: .json, .xml (JUnit), .html (repeatable)")
	addKnob(fl, "run", "chaos", &f.chaos)
	addKnob(fl, "run", "seed", &f.seed)
	addKnob(fl, "run", "chaos-from", &f.chaosFrom)
	addKnob(fl, "run", "config", &f.configPath)
	addKnob(fl, "run", "threshold", &f.thresholds)
	addKnob(fl, "run", "include-handshake", &f.includeHandshake)
	addKnob(fl, "run", "method-limit", &f.methodLimit)
	fl.StringVarP(&f.output, "output", "o", "text", "what goes to stdout: text or json")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "the text summary lists the details: each chaos session's faults and notes")
	addKnob(fl, "run", "order", &f.order)
	addKnob(fl, "run", "timeout", &f.timeout)
	addKnob(fl, "run", "ask-wait", &f.askWait)
	addKnob(fl, "run", "max-inflight", &f.maxInflight)
	addKnob(fl, "run", "spin", &f.spin)
	addKnob(fl, "run", "gc-headroom", &f.gcHeadroom)
	addKnob(fl, "run", "sessions", &f.sessions)
	addKnob(fl, "run", "ramp", &f.ramp)
	fl.StringVar(&f.shard, "shard", "", "replay shard I/N of the run (I from 0 to N-1): every N-th session, striped; the N shards together replay the whole run, and rps:/fixed: divide their rate by N (merge the reports with replayctl merge)")
	fl.IntVar(&f.shards, "shards", 0, "replay shard I of N, I from $REPLAYCTL_SHARD_INDEX, else $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's pods): every pod gets the same arguments")
	fl.StringVar(&f.coordinator, "coordinator", "", "replay the shard as part of one run coordinated at this URL (replayctl coordinate): one common start, live merged thresholds, one report; default $REPLAYCTL_COORDINATOR; its token is read from $REPLAYCTL_COORDINATOR_TOKEN")
	fl.DurationVar(&f.coordWait, "coordinator-wait", coord.DefaultHeartbeat, "with --coordinator: how long the shard retries a coordinator it cannot reach before it exits 1 (nothing sent); kube render gives its pods "+kube.DefaultCoordinatorWait.String()+", as a coordinator pod may start minutes after its shards")
	fl.IntVar(&f.localShards, "local-shards", 0, "run the replay as this many shard processes on this machine (each with --shard i/N) and show their merged report (0: one process)")
	fl.StringVar(&f.shardDir, "shard-reports", "", "with --local-shards: keep each shard's JSON report in this folder, as shard-I-of-N.json (default: a temporary folder, removed)")
	addKnob(fl, "run", "max-line", (*byteSize)(&f.maxLine))
	addKnob(fl, "run", "max-document", (*byteSize)(&f.maxDoc))
	addKnob(fl, "run", "timeline-limit", &f.timeline)
	addKnob(fl, "run", "on-error", &f.onError)
	addKnob(fl, "run", "validate-notifications", &f.validNotes)
	addKnob(fl, "run", "max-retries", &f.maxRetries)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress line (it is drawn on stderr only when stdout and stderr are both a terminal)")
	addTargetFlags(fl, &f)
	addCoordFlags(cmd, &f.coord)
	addOutFlag(fl, &f.outs, &f.outBuffer)
	addMetricsFlags(fl, &f.metrics)
	addHistoryFlags(fl, &f.history)
	addRerecordFlags(cmd, &f.rerecord)
	fl.StringVar(&f.contract, "contract", "", "check each live answer against a contract drawn from recordings (replayctl contract TAPE... > FILE): validation mode contract, instead of comparing with the recorded answers")
	addUIFlags(fl, &f.ui)
	registerValues(cmd, "speed", runSpeeds...)
	registerValues(cmd, "order", runOrders...)
	registerValues(cmd, "output", outputs...)
	registerValues(cmd, "on-error", runOnErrors...)
	registerValues(cmd, "validation", validationModes(true)...)
	register(cmd, "chaos", completeChaos)
	return cmd, &f
}

// addTargetFlags registers the flags that choose the target and bound
// what it may send; `run` and `debug` share them (and replayOptions reads
// them).
func addTargetFlags(fl *pflag.FlagSet, f *runFlags) {
	addKnob(fl, "", "max-message", &f.maxMessage)
	fl.StringVar(&f.target, "target", "", "a Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp")
	fl.StringArrayVar(&f.headers, "header", nil, `an HTTP header "K:V" sent on every request; values may use ${ENV}, which no output shows (repeatable)`)
	fl.BoolVar(&f.follow, "follow-redirects", false, "follow a redirect of the --target to another origin (another scheme, host or port), sending it none of the --header values; without it such a redirect fails the request")
	addKnob(fl, "", "http-client", &f.httpClient)
	addKnob(fl, "", "http-spare", &f.httpSpare)
	fl.BoolVar(&f.legacySSE, "legacy-sse", false, "the --target speaks the 2024-11-05 HTTP+SSE transport (without it, replayctl asks the endpoint)")
	fl.StringArrayVar(&f.env, "env", nil, "K=V added to the server command's environment (repeatable)")
	fl.StringVar(&f.cwd, "cwd", "", "working directory of the server command")
	fl.StringVar(&f.mockTape, "mock-tape", "", "the built-in mock answers from this tape instead of TAPE (e.g. a newer recording)")
	addKnob(fl, "", "validation", &f.validation)
}

func (a *app) run(cmd *cobra.Command, args []string, f runFlags) error {
	if f.output != "text" && f.output != "json" {
		return usageError("-o %q: want text or json", f.output)
	}
	for _, p := range f.reports {
		if err := report.CheckPath(p); err != nil {
			return usageError("--report: %w", err)
		}
	}
	local := cmd.Flags().Changed("local-shards")
	if !local && f.shardDir != "" {
		return usageError("--shard-reports keeps the reports of --local-shards: give --local-shards N too")
	}
	if local {
		if err := checkLocalShards(cmd, args, f); err != nil {
			return err
		}
		if f.ui.addr != "" {
			return usageError("--ui watches the replay of one process: not with --local-shards (watch a shard: --shard I/N --ui ADDR)")
		}
	}
	if err := checkCoordinated(cmd, args, &f, local); err != nil {
		return err
	}
	opts, err := a.replayOptions(cmd, args, f)
	if err != nil {
		return err
	}
	rerecord, err := f.rerecord.option(cmd, local)
	if err != nil {
		return err
	}
	defer f.rerecord.done()
	if rerecord != nil {
		opts = append(opts, rerecord)
	}
	if f.contract != "" {
		if cmd.Flags().Changed("validation") && f.validation != "contract" {
			return usageError("--contract checks answers in validation mode contract: leave out --validation %s", f.validation)
		}
		c, err := readContract("--contract", f.contract)
		if err != nil {
			return err
		}
		opts = append(opts, replay.Contract(c))
	}
	shardI, shardN, sharded, err := shardOf(cmd, f)
	if err != nil {
		return err
	}
	if sharded {
		opts = append(opts, replay.Shard(shardI, shardN))
	}
	var stream *coord.Stream // what a coordinated shard streams
	if f.coordinator != "" {
		var sopts []report.Option
		if f.includeHandshake {
			sopts = append(sopts, report.IncludeHandshake())
		}
		stream = coord.NewStream(sopts...)
		opts = append(opts, replay.Events(stream.Consumer()))
	}
	cfgFile, _ := configPath(cmd, f.configPath) // replayOptions checked it
	if err := resolveHistory(cmd, &f.history, cfgFile); err != nil {
		return err
	}
	outs, outOpts, err := a.openOuts(f.outs, f.outBuffer, true)
	if err != nil {
		return err
	}
	defer outs.close()
	opts = append(opts, outOpts...)
	served, metricsOpts, err := a.startMetrics(f.metrics, metricsInfo("run", args[0], f.methodLimit)...)
	if err != nil {
		return err
	}
	defer a.stopMetrics(cmd.Context(), served)
	opts = append(opts, metricsOpts...)
	opts = append(opts, given(cmd, []flagOption{
		{"sessions", func() replay.Option { return replay.Sessions(f.sessions) }},
		{"ramp", func() replay.Option { return replay.Ramp(f.ramp) }},
		{"on-error", func() replay.Option { return replay.OnError(replay.ErrorPolicy(f.onError)) }},
		{"max-retries", func() replay.Option { return replay.MaxRetries(f.maxRetries) }},
		{"timeline-limit", func() replay.Option { return replay.TimelineLimit(f.timeline) }},
		{"chaos", func() replay.Option { return replay.Chaos(f.chaos) }},
		{"seed", func() replay.Option { return replay.Seed(f.seed) }},
		{"chaos-from", func() replay.Option { return replay.ChaosFrom(f.chaosFrom) }},
		{"threshold", func() replay.Option { return replay.Thresholds(f.thresholds...) }},
		{"method-limit", func() replay.Option { return replay.MethodLimit(f.methodLimit) }},
	})...)
	if f.includeHandshake {
		opts = append(opts, replay.IncludeHandshake())
	}
	if f.validNotes {
		opts = append(opts, replay.ValidateNotifications())
	}
	steps := make(chan struct{})
	opts = append(opts, replay.Steps(steps))
	var prog progress
	showProgress := !f.quiet && isTerminal(a.stdout) && isTerminal(a.stderr)
	if showProgress { // a live reader of the event stream
		opts = append(opts, replay.Events(prog.consumer()))
	}
	// The hook of a stepped run, for the bytes sent (the stream carries
	// none in a run); at any other speed no hook asks for the bytes, and
	// the replay does not mask them for display.
	opts = append(opts, replay.OnStep(func(r report.Result) {
		fmt.Fprintln(a.errOut, stepLine(painter(isTerminal(a.stderr)), r))
	}))
	src, err := a.loadTapeArg(cmd.Context(), args[0])
	if err != nil {
		return err
	}
	view, err := openUI(f.ui, args[0], f.thresholds, served.metrics(), metricsInfo("run", args[0], f.methodLimit)...)
	if err != nil {
		return err
	}
	defer view.stop()
	opts = append(opts, view.options()...)
	if !local && stream == nil && a.checkRun == nil {
		// A stdio server starts while the tape is read (a cassette's
		// decode); a coordinated shard may wait long for its start, and
		// local shards start their own.
		opts = append(opts, replay.StartTargetFirst())
	}
	r, err := replay.New(src, opts...)
	if err != nil {
		return inputError(err)
	}
	defer r.Close()
	a.redact(r.Secrets())
	if a.checkRun != nil { // the options are good: only checked, not run
		return a.checkRun(r)
	}
	if seed, random, ok := r.ChaosSeed(); ok && random {
		fmt.Fprintf(a.errOut, "chaos: seed %d (repeat this run with --seed %d)\n", seed, seed)
	} else if ok && f.chaosFrom != "" {
		fmt.Fprintf(a.errOut, "chaos: the faults of %s, seed %d (the run it repeats)\n", f.chaosFrom, seed)
	}
	if why := r.RampUnused(); why != "" {
		fmt.Fprintf(a.errOut, "warning: --ramp %s does nothing %s\n", r.Ramp(), why)
	}
	if seed, random, ok := r.OrderSeed(); ok && random {
		fmt.Fprintf(a.errOut, "order: seed %d (repeat this order with --seed %d)\n", seed, seed)
	}
	if local { // the options are good: the shards replay them (a bad tape's error is said once, see runLocalShards)
		return a.runLocalShards(cmd, args, f, randomSeed(r))
	}
	runCtx := cmd.Context()
	var link *coord.Shard
	if stream != nil {
		if seed := randomSeed(r); seed != nil {
			return usageError("--coordinator: this shard picked its seed at random (%d): give every shard the same --seed, so that they decide the faults and the order as one run", *seed)
		}
		link, err = a.joinCoordinator(cmd.Context(), cmd, args, f, r, stream, shardI, shardN)
		if err != nil || link == nil {
			return err
		}
		runCtx = link.Context()
	}
	if r.Speed().Mode == scheduler.Stepped {
		if err := refuseStdinTape("run --speed stepped", args[0], "stepped reads Enter there"); err != nil {
			return err
		}
		a.stepTokens(steps)
	} else if showProgress {
		prog.start(cmd.Context(), a.errOut, src, r.Sessions())
	}
	view.start(cmd.Context(), a.stderr, nil)
	rep, runErr := r.Run(runCtx)
	prog.stop(rep) // the final line stays, above the summary
	saveErr := view.finish(rep)
	defer view.wait(cmd.Context(), a.stderr) // after the summary
	delivered := false                       // this shard's report is the coordinator's
	byCoordinator := false                   // its report says the coordinator stopped it (see coord.Shard.Finish)
	if link != nil {
		delivered = true
		if err := link.Finish(cmd.Context(), rep, runErr); err != nil {
			delivered = false
			fmt.Fprintf(a.errOut, "shard %d/%d: deliver the report to the coordinator: %v\n", shardI, shardN, err)
			if rep != nil {
				rep.Abort("the coordinator did not get this shard's report: " + err.Error())
			}
		} else if rep != nil && (rep.Summary.Stopped == report.StopFailure || rep.Summary.Stopped == report.StopInterrupted) && strings.HasPrefix(rep.Summary.Aborted, "stopped by the coordinator") {
			byCoordinator = true
			runErr = nil // the stop is the coordinator's: its report says why
		}
	}
	if rep == nil {
		return runErr // nothing was replayed: a bad tape
	}
	var tapeErr *tape.Error
	if link == nil && rep.Summary.Sent == 0 && errors.As(runErr, &tapeErr) {
		return runErr // a tape that cannot be read, before anything was sent: its error alone, as above
	}
	a.rerecordSummary(r, &f.rerecord, f.quiet)
	a.keepHistory(context.WithoutCancel(cmd.Context()), cmd, args[0], f.history, rep)
	// The summary first: a report file that cannot be written must not
	// lose what a long replay found.
	var buf bytes.Buffer // rendered whole: one Write, so that redaction sees every secret
	if f.output == "json" {
		err = rep.WriteJSON(&buf)
	} else {
		var opts []report.TextOption
		if f.verbose {
			opts = append(opts, report.Verbose())
		}
		if why := rep.Summary.Aborted; runErr != nil && why != "" && strings.Contains(runErr.Error(), why) {
			// The error line on stderr says why: once is enough.
			opts = append(opts, report.AbortShownAs("the error follows on stderr"))
		}
		err = rep.WriteText(&buf, colorOn(a.stdout), opts...)
	}
	if err != nil {
		return err
	}
	summary := cmd.OutOrStdout()
	if outs.stdout { // stdout carries the events alone
		summary = a.errOut
	}
	if _, err := summary.Write(buf.Bytes()); err != nil {
		return err
	}
	writeErr := errors.Join(outs.close(), saveErr)
	for _, p := range f.reports {
		if err := report.WriteFile(p, *rep, a.redactor.Load()); err != nil {
			writeErr = errors.Join(writeErr, err)
		}
	}
	switch code := rep.ExitStatus(); {
	case code == report.ExitInterrupted && !(delivered && byCoordinator):
		return &exitError{code: code, err: errors.New("interrupted; the report covers what was replayed")}
	case runErr != nil && code == report.ExitBadInput && delivered && writeErr == nil && os.Getenv(coord.EnvLocal) != "":
		// Every local shard reads the same tape: its runner says the
		// error once, from this shard's report (see runLocalShards).
		return &exitError{code: code, err: errSaidByRunner}
	case runErr != nil:
		return &exitError{code: code, err: errors.Join(runErr, writeErr)}
	case writeErr != nil:
		return fmt.Errorf("write report or events: %w", writeErr)
	case delivered && (code == report.ExitFailed || byCoordinator && code == report.ExitInterrupted):
		// The coordinator judges the run on the merged data (and says
		// why it stopped the shards, an interrupt of its own included);
		// this shard's part was delivered.
		return nil
	case code != report.ExitPassed:
		// The verdict's status, also when --ui-hold's page is then
		// closed by Ctrl-C: the replay was over.
		return &exitError{code: exitFailed, err: errReported}
	}
	return nil
}

// replayOptions maps what run and debug share of their flags to replay
// options: the target, pacing, order, timeout, ignored paths, the config.
// A flag not given is left to the config file, then to the default.
func (a *app) replayOptions(cmd *cobra.Command, args []string, f runFlags) ([]replay.Option, error) {
	opts := []replay.Option{replay.Logger(a.log)}
	cfg, err := configPath(cmd, f.configPath)
	if err != nil {
		return nil, err
	}
	if cfg != "" {
		opts = append(opts, replay.ConfigFile(cfg))
	}
	opts = append(opts, given(cmd, []flagOption{
		{"speed", func() replay.Option { return replay.SpeedText(f.speed) }},
		{"order", func() replay.Option { return replay.Order(replay.Ordering(f.order)) }},
		{"timeout", func() replay.Option { return replay.Timeout(f.timeout) }},
		askWaitFlag(&f.askWait),
		{"max-inflight", func() replay.Option { return replay.MaxInflight(f.maxInflight) }},
		{"spin", func() replay.Option { return replay.Spin(f.spin) }},
		{"gc-headroom", func() replay.Option { return replay.GCHeadroom(int64(f.gcHeadroom)) }},
		{"max-line", func() replay.Option { return replay.MaxLine(f.maxLine) }},
		{"max-document", func() replay.Option { return replay.MaxDocument(f.maxDoc) }},
		{"max-message", func() replay.Option { return replay.MaxMessage(int(f.maxMessage)) }},
		{"ignore", func() replay.Option { return replay.Ignore(f.ignore...) }},
		{"validation", func() replay.Option { return replay.Validation(validator.Mode(f.validation)) }},
	})...)
	var command []string
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		command = args[dash:]
	}
	t, err := chooseTarget(f, command)
	if err != nil {
		return nil, err
	}
	return append(opts, replay.Against(t)), nil
}

// askWaitFlag is --ask-wait's replay option, one definition for the
// commands that take the flag (run, debug, shrink through replayOptions;
// compare): the knobs table gives its default and usage, replay.AskWait
// checks it (a negative one is bad input), and the engine bounds it by
// --timeout.
func askWaitFlag(d *time.Duration) flagOption {
	return flagOption{"ask-wait", func() replay.Option { return replay.AskWait(*d) }}
}

// flagOption is the replay option a flag gives.
type flagOption struct {
	flag string
	opt  func() replay.Option
}

// given is the options of the flags the user gave: a flag left out leaves
// its option to the config file, then to the default.
func given(cmd *cobra.Command, fos []flagOption) []replay.Option {
	var opts []replay.Option
	for _, fo := range fos {
		if cmd.Flags().Changed(fo.flag) {
			opts = append(opts, fo.opt())
		}
	}
	return opts
}

// chooseTarget is the target the flags choose: a server command after --, an
// HTTP endpoint, or a mock.
func chooseTarget(f runFlags, command []string) (replay.Target, error) {
	chosen := 0
	for _, set := range []bool{len(command) > 0, f.target != "", f.mockTape != ""} {
		if set {
			chosen++
		}
	}
	switch {
	case chosen > 1:
		return replay.Target{}, usageError("give one target: a server command after --, --target URL, or --mock-tape FILE")
	case (len(f.env) > 0 || f.cwd != "") && len(command) == 0:
		return replay.Target{}, usageError("--env and --cwd are for a server command (after --)")
	case (len(f.headers) > 0 || f.legacySSE || f.follow || (f.httpClient != "" && f.httpClient != "lean") || f.httpSpare != replay.DefaultHTTPSpare) && f.target == "":
		return replay.Target{}, usageError("--header, --legacy-sse, --follow-redirects, --http-client and --http-spare are for an HTTP --target")
	}
	switch {
	case len(command) > 0:
		t := replay.Command(command[0], command[1:]...).WithEnv(f.env...)
		if f.cwd != "" {
			t = t.WithDir(f.cwd)
		}
		return t, nil
	case f.target != "":
		t := replay.HTTP(f.target)
		for _, h := range f.headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return replay.Target{}, usageError("--header %q: want K:V, e.g. \"Authorization:Bearer ${TOKEN}\"", h)
			}
			t = t.WithHeader(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		if f.legacySSE {
			t = t.WithLegacySSE()
		}
		if f.follow {
			t = t.WithFollowRedirects()
		}
		if _, err := transport.ParsePoster(f.httpClient); err != nil {
			return replay.Target{}, usageError("--http-client: %v", err)
		}
		t = t.WithHTTPClient(f.httpClient)
		if f.httpClient == string(transport.PosterStd) && f.httpSpare != replay.DefaultHTTPSpare {
			return replay.Target{}, usageError("--http-spare sets the lean client's spare connections: leave it out with --http-client std")
		}
		if f.httpSpare < 0 || f.httpSpare > transport.MaxSpare {
			return replay.Target{}, usageError("--http-spare %d: want 0 to %d", f.httpSpare, transport.MaxSpare)
		}
		t = t.WithHTTPSpare(f.httpSpare)
		return t, nil
	case f.mockTape != "":
		return replay.MockTape(f.mockTape), nil
	}
	return replay.Mock(), nil
}

// flagOf names the flag behind each replay option, for errors: the
// knobs' (package knobs) and the others run maps to an option.
var flagOf = knobFlagOf(map[string]string{
	"Speed": "--speed", "Shard": "--shard", "Rerecord": "--rerecord", "Contract": "--contract",
	"WithEnv": "--env", "WithDir": "--cwd", "WithHeader": "--header", "WithFollowRedirects": "--follow-redirects",
	"HTTP": "--target", "Command": "the server command",
})

// inputError turns an error of replay.New into the CLI's words (flag
// names) and exit status 2.
func inputError(err error) error {
	var oe *replay.OptionError
	if errors.As(err, &oe) {
		name, ok := flagOf[oe.Option]
		if !ok {
			name = oe.Option
		}
		if oe.Value == "" {
			return usageError("%s: %w", name, oe.Err)
		}
		return usageError("%s %s: %w", name, oe.Value, oe.Err)
	}
	return &exitError{code: exitBadInput, err: err}
}

// stepLine is one judged message of a stepped run: "→ seq 5 tools/call
// {…}  ✓ passed (41µs)"; a recorded server message not sent is
// "← seq 8 notifications/message  · skipped: …".
func stepLine(p painter, r report.Result) string {
	head := sentLine(r.Seq, r.Method, r.Out, stepWidth)
	if r.Dir == report.DirS2C {
		what := r.Method
		if what == "" {
			what = r.Kind
		}
		head = fmt.Sprintf("← seq %d %s", r.Seq, what)
	}
	return truncate(head, stepWidth) + "  " + verdictLine(p, r, stepWidth)
}

// stepWidth is the width a stepped run's lines are cut to.
const stepWidth = 80

// stepTokens releases one message on steps per line read from stdin
// (Enter).
func (a *app) stepTokens(steps chan<- struct{}) {
	fmt.Fprintln(a.errOut, "stepped: press Enter to send each message; end of input stops")
	go func() { // lives as long as the process: a blocked read cannot be cancelled
		defer close(steps)
		sc := bufio.NewScanner(a.stdin)
		for sc.Scan() {
			steps <- struct{}{}
		}
	}()
}

// loadTape is tape.Load (a pipe or a FIFO is read into memory once, as
// the replay opens its tape more than once), given up when ctx is done:
// a pipe whose writer never closes it is then left to the end of the
// process.
func loadTape(ctx context.Context, path string) (tape.Source, error) {
	type loaded struct {
		src tape.Source
		err error
	}
	done := make(chan loaded, 1)
	go func() { // a blocked open or read cannot be cancelled
		src, err := tape.Load(path)
		done <- loaded{src, err}
	}()
	select {
	case l := <-done:
		return l.src, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("tape %s: interrupted while reading it (a pipe is read whole before the replay; has its writer finished?): %w", path, ctx.Err())
	}
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
