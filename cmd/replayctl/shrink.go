package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// shrinkFlags are the flags of `replayctl shrink`: the run flags that
// shape each replay, and the shrink's own.
type shrinkFlags struct {
	runFlags
	tapeOut  string
	planOut  string
	report   string
	parallel int
	baseline int
	runs     int
	need     int
	proof    int
	maxRuns  int
	noSimple bool
	force    bool
	resetCmd string
	at       string // --at SESSION:SEQ
}

func (a *app) shrinkCommand() *cobra.Command {
	var f shrinkFlags
	cmd := &cobra.Command{
		Use:   "shrink TAPE [flags] [--chaos-from REPORT] [-- SERVER_COMMAND ARGS...]",
		Short: "Shrink a failing tape (and its chaos faults) to the smallest that still fails the same way",
		Long: `Replay a failing tape many times, each time with less of it, and write the
smallest tape (and chaos plan) that still fails the same way: the same kind
of failure (a difference at the same path, a crash of the target, a timeout,
a protocol error) at the same message.

The whole tape is replayed --baseline times first; the failure kept is the
one the most runs showed (of those, the first in tape order), or the one at
--at SESSION:SEQ. Then whole sessions go, then chunks of units
(delta debugging), then single units from the back, then the faults of
--chaos-from, then the parameters of the calls left are simplified (members
dropped, strings halved), round after round until nothing more can go. A
unit is what the protocol needs together: a request and its answer, a server
request and the client's answer, an MRTR round chain, a task and its polls.
Handshakes stay. Messages keep their recorded seq.

A flaky failure: when not every baseline run failed, each candidate is
replayed up to --runs times and kept when --need of them fail (--runs 0
picks the runs from the baseline's rate). Last, the result is replayed
--proof times.

A server command after -- is started afresh for each replay (a process per
session); tries run --parallel at a time. A --target URL serves every try:
give --reset-cmd to bring its state back before each (the tries then run
one at a time).

Exit status: 0 when the result re-fails as the baseline did (every proof run
for a failure every baseline run showed, --need of them for a flaky one); 1
when it does not, or the tape did not fail at all; 2 bad input; 3 when
--reset-cmd fails.`,
		Example: `  replayctl shrink failing.jsonl -- ./my-server --stdio
  replayctl shrink chaos.jsonl --chaos-from chaos-report.json -- node server.js
  replayctl shrink big.jsonl --target http://127.0.0.1:3000/mcp --reset-cmd './reset-db.sh'
  replayctl shrink flaky.jsonl --baseline 10 --runs 12 --need 1 --report shrink.json -- ./server`,
		Args: tapeArgs("shrink"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.shrink(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	addKnob(fl, "shrink", "speed", &f.speed)
	addKnob(fl, "shrink", "ignore", &f.ignore)
	addKnob(fl, "shrink", "order", &f.order)
	addKnob(fl, "shrink", "timeout", &f.timeout)
	addKnob(fl, "shrink", "ask-wait", &f.askWait)
	addKnob(fl, "shrink", "max-inflight", &f.maxInflight)
	addKnob(fl, "shrink", "max-line", (*byteSize)(&f.maxLine))
	addKnob(fl, "shrink", "config", &f.configPath)
	addKnob(fl, "shrink", "validate-notifications", &f.validNotes)
	addKnob(fl, "shrink", "chaos-from", &f.chaosFrom)
	addTargetFlags(fl, &f.runFlags)
	fl.StringVar(&f.tapeOut, "tape-out", "", "write the smallest tape here, atomically (default: TAPE's name with .min.jsonl, beside it)")
	fl.StringVar(&f.planOut, "plan-out", "", "with --chaos-from: write the smallest chaos plan here, for run --chaos-from (default: TAPE's name with .min.chaos.json, beside it)")
	fl.StringVar(&f.report, "report", "", "write the shrink's JSON report here (sizes before and after, runs, time, proof)")
	fl.StringVarP(&f.output, "output", "o", "text", "what goes to stdout: text or json (the report)")
	fl.IntVar(&f.parallel, "parallel", shrink.DefaultParallel, "tries replayed at once")
	fl.IntVar(&f.baseline, "baseline", shrink.DefaultBaseline, "replays of the whole tape first: which failure, and how often")
	fl.IntVar(&f.runs, "runs", 0, "replays per candidate, k-of-n's n (0: 1 when every baseline run failed, else enough to see the failure at the baseline's rate, 99.9% sure)")
	fl.IntVar(&f.need, "need", 1, "failing replays that keep a candidate, k-of-n's k")
	fl.IntVar(&f.proof, "proof", shrink.DefaultProof, "replays of the result at the end, to show it re-fails")
	fl.IntVar(&f.maxRuns, "max-runs", shrink.DefaultMaxRuns, "replays of the baseline and the search at most; then the smallest tape found so far is proved (--proof more) and written")
	fl.BoolVar(&f.force, "force", false, "overwrite the files --tape-out, --plan-out and --report name if they exist (TAPE itself too: it is replaced once the shrink has read it)")
	fl.BoolVar(&f.noSimple, "no-simplify", false, "keep the parameters of the calls as recorded")
	fl.StringVar(&f.at, "at", "", "shrink the failure at this message, SESSION:SEQ (e.g. s3:128; SEQ alone in a tape of one session; -1 for a crash between messages), not the first one")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no line on stderr for each step that made the tape smaller")
	fl.StringVar(&f.resetCmd, "reset-cmd", "", "a shell command run before every replay (sh -c) that brings the target's state back, e.g. for a --target; tries then run one at a time")
	registerValues(cmd, "speed", runSpeeds...)
	registerValues(cmd, "output", outputs...)
	registerValues(cmd, "validation", validationModes(false)...)
	return cmd
}

func (a *app) shrink(cmd *cobra.Command, args []string, f shrinkFlags) error {
	if f.output != "text" && f.output != "json" {
		return usageError("-o %q: want text or json", f.output)
	}
	for _, c := range []struct {
		flag string
		v    int
		min  int
	}{{"--parallel", f.parallel, 1}, {"--baseline", f.baseline, 1}, {"--runs", f.runs, 0}, {"--need", f.need, 1}, {"--proof", f.proof, 0}, {"--max-runs", f.maxRuns, 1}} {
		if c.v < c.min {
			return usageError("%s %d: want %d or more", c.flag, c.v, c.min)
		}
	}
	if strings.TrimSpace(f.speed) == "stepped" {
		return usageError("--speed stepped: shrink replays with no one to step them; use fast (the default), realtime, Nx, fixed: or rps:")
	}
	if f.maxRuns < f.baseline {
		return usageError("--max-runs %d: the baseline alone replays the tape %d times (--baseline): give --max-runs %d or more, or a smaller --baseline", f.maxRuns, f.baseline, f.baseline)
	}
	if f.runs > 0 && f.need > f.runs {
		return usageError("--need %d of --runs %d: a candidate cannot fail more often than it is replayed", f.need, f.runs)
	}
	if cmd.ArgsLenAtDash() < 0 && f.target == "" && f.mockTape == "" {
		return usageError("shrink: no server to shrink against: give the one that fails, -- SERVER ARGS… or --target URL (the built-in mock answers as TAPE recorded: nothing fails)")
	}
	tapeOut, planOut := f.tapeOut, f.planOut
	if args[0] == "-" && tapeOut == "" {
		return usageError("shrink: the tape is on stdin: name the output with --tape-out FILE")
	}
	if tapeOut == "" {
		tapeOut = sibling(args[0], ".min.jsonl")
	}
	if f.chaosFrom != "" && planOut == "" {
		planOut = sibling(args[0], ".min.chaos.json")
	}
	if f.chaosFrom == "" && f.planOut != "" {
		return usageError("--plan-out writes the faults of --chaos-from: give --chaos-from REPORT too")
	}
	outs := []output{{"--tape-out", tapeOut}, {"--plan-out", planOut}, {"--report", f.report}}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := refuseExisting("shrink", o.flag, o.path, f.force); err != nil {
			if sameFile(o.path, args[0]) {
				return usageError("%v (%s is TAPE itself: the failing tape)", err, o.path)
			}
			return err
		}
	}
	if err := checkOutputs(outs); err != nil {
		return err
	}
	opts, err := a.replayOptions(cmd, args, f.runFlags)
	if err != nil {
		return err
	}
	if f.validNotes {
		opts = append(opts, replay.ValidateNotifications())
	}
	// Hundreds of replays each warn of what they see (a server that died
	// under chaos): the shrink's report says it once. --log-level debug
	// shows them.
	if a.log.GetLevel() > zerolog.DebugLevel {
		opts = append(opts, replay.Logger(a.log.Level(zerolog.ErrorLevel)))
	}
	var shrinkOpts []shrink.Option
	check := opts
	if f.chaosFrom != "" {
		seed, faults, err := faultsOf(f.chaosFrom)
		if err != nil {
			return err
		}
		shrinkOpts = append(shrinkOpts, shrink.Faults(seed, faults))
		check = append(check, replay.ChaosFaults(seed, faults))
	}
	src, err := a.loadTapeArg(cmd.Context(), args[0])
	if err != nil {
		return err
	}
	// The options and the config are checked once, before any replay.
	r, err := replay.New(src, check...)
	if err != nil {
		return inputError(err)
	}
	a.redact(r.Secrets())
	shrinkOpts = append(shrinkOpts, shrink.Replay(opts...), shrink.Parallel(f.parallel), shrink.Baseline(f.baseline),
		shrink.Runs(f.runs), shrink.Need(f.need), shrink.Proof(f.proof), shrink.MaxRuns(f.maxRuns), shrink.Logger(a.log))
	if f.at != "" {
		session, seq, err := parseAt(f.at, src)
		if err != nil {
			return err
		}
		shrinkOpts = append(shrinkOpts, shrink.At(session, seq))
	}
	if cmd.Flags().Changed("max-line") {
		shrinkOpts = append(shrinkOpts, shrink.TapeOptions(tape.WithMaxLine(f.maxLine)))
	}
	if !f.quiet {
		shrinkOpts = append(shrinkOpts, shrink.OnStep(func(s shrink.Step) {
			fmt.Fprintf(a.errOut, "shrink: round %d, %s: %s, %s, %s, %s (%s)\n", s.Round, s.Phase,
				english.Count(int64(s.Size.Sessions), "session"), english.Count(int64(s.Size.Units), "unit"),
				english.Count(int64(s.Size.Messages), "message"), english.Count(int64(s.Size.Faults), "fault"), english.Count(int64(s.Runs), "run"))
		}))
	}
	if f.noSimple {
		shrinkOpts = append(shrinkOpts, shrink.NoSimplify())
	}
	if f.resetCmd != "" {
		shrinkOpts = append(shrinkOpts, shrink.Reset(a.resetHook(f.resetCmd, f.timeout)))
	}
	res, err := shrink.Shrink(cmd.Context(), src, shrinkOpts...)
	if errors.Is(err, shrink.ErrReset) || errors.Is(err, shrink.ErrTarget) { // the target could not be brought back, or reached
		err = &exitError{code: exitTarget, err: err}
	}
	if res == nil {
		if cmd.Context().Err() != nil {
			return interrupted("in the baseline, before any failure was kept: nothing was found, no tape was written")
		}
		if errors.Is(err, shrink.ErrNoFailure) {
			return &exitError{code: exitFailed, err: err}
		}
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return inputError(err)
	}
	// What was found is written even when the shrink was interrupted.
	writeErr := res.WriteTape(tapeOut)
	if planOut != "" {
		writeErr = errors.Join(writeErr, res.WritePlan(planOut, tapeOut))
	}
	if f.report != "" {
		writeErr = errors.Join(writeErr, res.WriteReport(f.report, args[0]))
	}
	var buf bytes.Buffer
	if f.output == "json" {
		b, jerr := json.MarshalIndent(res.Summary(args[0]), "", "  ")
		if jerr != nil {
			return jerr
		}
		buf.Write(append(b, '\n'))
	} else {
		if werr := res.WriteText(&buf); werr != nil {
			return werr
		}
		fmt.Fprintf(&buf, "wrote:    %s", tapeOut)
		if planOut != "" {
			fmt.Fprintf(&buf, ", %s", planOut)
		}
		buf.WriteString("\n")
	}
	if _, werr := cmd.OutOrStdout().Write(buf.Bytes()); werr != nil {
		return werr
	}
	switch {
	case res.Interrupted && writeErr != nil:
		return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted; the smallest tape found so far could not be written: %w", writeErr)}
	case res.Interrupted:
		return interrupted("wrote the smallest tape found so far to " + tapeOut + " (not proved)")
	case err != nil:
		return err
	case writeErr != nil:
		return writeErr
	case !res.ProofHolds:
		return &exitError{code: exitFailed, err: fmt.Errorf("the proof does not hold: the result failed %d of %d proof runs (baseline %d of %d); try more --runs or a higher --need", res.Proof.Failed, res.Proof.Runs, res.Baseline.Failed, res.Baseline.Runs)}
	}
	return nil
}

// output is a file the shrink writes, and the flag that names it.
type output struct{ flag, path string }

// checkOutputs refuses, before the first replay, outputs the shrink could
// not write at its end (their folder does not exist) or that would
// overwrite one another: a search can take hours, and its result would
// be lost, or the report written over the tape.
func checkOutputs(outs []output) error {
	for i, o := range outs {
		if o.path == "" {
			continue
		}
		dir := filepath.Dir(o.path)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usageError("shrink: %s %s: the folder %s does not exist; create it first, or choose another %s", o.flag, o.path, dir, o.flag)
		}
		for _, p := range outs[:i] {
			if p.path != "" && samePath(p.path, o.path) {
				return usageError("shrink: %s and %s both name %s: give each its own file", p.flag, o.flag, o.path)
			}
		}
	}
	return nil
}

// samePath reports whether a and b name one file: the same path once
// made absolute and clean, or one existing file (a link to it).
func samePath(a, b string) bool {
	aa, errA := filepath.Abs(a)
	ab, errB := filepath.Abs(b)
	return (errA == nil && errB == nil && aa == ab) || sameFile(a, b)
}

// sibling is path with its extension replaced by ext.
func sibling(path, ext string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ext
}

// faultsOf reads the chaos seed and faults of a run's JSON report.
func faultsOf(path string) (int64, []report.Fault, error) {
	rep, err := report.Read(path)
	if err != nil {
		return 0, nil, usageError("--chaos-from %s: %w", path, err)
	}
	switch {
	case len(rep.Chaos.Faults) == 0:
		return 0, nil, usageError("--chaos-from %s: the report lists no faults (was it a chaos run?)", path)
	case rep.Chaos.FaultsOmitted > 0:
		return 0, nil, usageError("--chaos-from %s: the report left out %d faults: the run cannot be repeated from it", path, rep.Chaos.FaultsOmitted)
	}
	var seed int64
	if rep.Chaos.Seed != nil {
		seed = *rep.Chaos.Seed
	}
	return seed, rep.Chaos.Faults, nil
}

// resetHook runs command through sh -c, its output on stderr, bounded by
// timeout.
func (a *app) resetHook(command string, timeout time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		c := exec.CommandContext(ctx, "sh", "-c", command)
		c.Stdout, c.Stderr = a.errOut, a.errOut
		c.Stdin = nil
		c.Env = os.Environ()
		if err := c.Run(); err != nil {
			return fmt.Errorf("--reset-cmd %q: %w", command, err)
		}
		return nil
	}
}

// parseAt reads --at SESSION:SEQ; SEQ alone names a message of the
// tape's one session. The session must be on the tape, and SEQ (unless
// -1, a crash between messages) one of its messages.
func parseAt(v string, src tape.Source) (string, int64, error) {
	session, num, named := strings.Cut(v, ":")
	seq, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if !named {
		seq, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	}
	if err != nil || seq < -1 || (named && session == "") {
		return "", 0, usageError("--at %q: want SESSION:SEQ, e.g. --at s3:128 (replayctl inspect TAPE lists them)", v)
	}
	t, err := shrink.Load(src)
	if err != nil {
		return "", 0, inputError(err)
	}
	var sessions []string
	for _, u := range t.Units {
		if !slices.Contains(sessions, u.Session) {
			sessions = append(sessions, u.Session)
		}
	}
	some := strings.Join(sessions[:min(len(sessions), 5)], ", ")
	if len(sessions) > 5 {
		some += ", …"
	}
	switch {
	case len(sessions) == 0:
		return "", 0, usageError("--at %s: the tape has no session", v)
	case !named && len(sessions) != 1:
		return "", 0, usageError("--at %s: the tape has %d sessions (%s): name one, e.g. --at %s:%d", v, len(sessions), some, sessions[0], seq)
	case !named:
		session = sessions[0]
	case !slices.Contains(sessions, session):
		return "", 0, usageError("--at %s: the tape has no session %s; it has %s (replayctl inspect TAPE lists them)", v, session, some)
	}
	if seq >= 0 && !slices.ContainsFunc(t.Messages, func(m tape.Message) bool { return m.Session == session && m.Seq == seq }) {
		return "", 0, usageError("--at %s: session %s has no message seq %d (replayctl inspect TAPE lists them)", v, session, seq)
	}
	return session, seq, nil
}
