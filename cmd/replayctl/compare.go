package main

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/compare"
	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/replay"
)

// errDifferent is compare --fail-on-difference finding a changed path:
// exit 1, the report already printed.
var errDifferent = fmt.Errorf("the candidate's answers changed: %w", errReported)

// compareFlags are the flags of `replayctl compare`.
type compareFlags struct {
	primary, candidate, secondary string
	relative, absolute            float64
	alpha, minEffect              float64
	ignore, normalize             []string
	output                        string
	reports                       []string
	failOnDifference              bool
	speed, order                  string
	timeout                       time.Duration
	askWait                       time.Duration
	sessions                      int
	maxLine                       int
	maxDoc                        int
	maxMessage                    byteSize
	headers                       []string
	configPath                    string
	notifications                 bool
	seed                          int64
}

func (a *app) compareCommand() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare TAPE --primary TARGET --candidate TARGET [--secondary TARGET]",
		Short: "Replay a tape against two servers and say which answers really changed",
		Long: `Replay one tape against a primary (the known-good server) and a candidate (the
new one), and say per method, tool and JSON path which answers changed —
with the noise filtered out, as Twitter's Diffy does.

The tape is replayed once per target, one after the other, with the same
schedule and ids: primary, candidate, then the secondary (--secondary, a
second deployment of the primary's code) or, without one, the primary
again. Answers are paired by session and seq and compared as validation
compares an answer with its recording: never the id, a multi-round
requestState or a task's id and times; params' _meta and requestState and
progress tokens left out; timestamps and UUIDs normalised (--normalize adds
more, --ignore leaves paths out). An answer that did not come differs at $.
The server's notifications the tape has are compared too, each paired with
the live one of its method in order (--notifications=false: answers only).

For each path, raw counts the answers where primary and candidate differ
and noise those where primary and secondary do. A path is reported as
changed when raw > noise and
  relative = |raw − noise| / (raw + noise) × 100 > --relative-margin (20)
  absolute = |raw − noise| / total × 100        > --absolute-margin (0.03)
total being the answers of its method and name. A random id or the time
as a number differs in every run: it is noise, listed apart.

Latency is compared per method and per tool as distributions: p50, p90
and p99 of each run, the Kolmogorov–Smirnov and Mann–Whitney tests of
candidate against primary; changed when the KS p is below --latency-alpha
and the median or p95 moved by --latency-min-effect. The secondary's
distribution beside them says how much two runs of one server differ here.

TARGET is an HTTP endpoint (http://127.0.0.1:3000/mcp, https://…), or a
server command after "cmd:", split into words as a shell would (quotes and
backslashes; nothing expanded): 'cmd:node server.js --port 0'. A command
is started anew for each session and spoken to over stdio.

-o json prints one object: tape, runs [{role, target, again, status, error,
answers, duration_ms}], margins {relative, absolute}, summary {compared,
endpoints, changed, noise, latency_changed, target_failed}, changed and
paths [{method, name, path, total, raw, noise, relative, absolute,
changed, example {session, seq, primary, candidate}}], endpoints [{method,
name, total, differing, noisy}] and latency [{method, name, primary,
candidate, secondary {n, p50, p90, p95, p99}, ks, ks_p, prob_slower, mw_p,
changed, noise_changed, missing}]. --report FILE.json or FILE.html writes
the same object, or a self-contained HTML page.

Exit status: 0 compared (whatever changed), 1 with --fail-on-difference and
a changed path, 2 bad usage or a tape that cannot be read, 3 a target
failed (the report is printed first), 130 interrupted.`,
		Example: `  replayctl compare recorded.jsonl --primary http://127.0.0.1:3000/mcp --candidate http://127.0.0.1:3001/mcp
  replayctl compare recorded.jsonl --primary 'cmd:node server-v1.js' --candidate 'cmd:node server-v2.js' --fail-on-difference
  replayctl compare recorded.jsonl --primary http://old:3000/mcp --secondary http://old-2:3000/mcp --candidate http://new:3000/mcp -o json --report compare.html`,
		Args: exactArgs(1, "compare TAPE --primary TARGET --candidate TARGET [--secondary TARGET]"),
		RunE: func(cmd *cobra.Command, args []string) error { return a.compare(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.primary, "primary", "", "the known-good server: http(s)://… or 'cmd:COMMAND ARGS…'")
	fl.StringVar(&f.candidate, "candidate", "", "the server under test: http(s)://… or 'cmd:COMMAND ARGS…'")
	fl.StringVar(&f.secondary, "secondary", "", "a second deployment of the primary's code, for the noise (default: the primary replayed again)")
	fl.Float64Var(&f.relative, "relative-margin", compare.DefaultRelativeMargin, "percent: a path is reported when |raw − noise| / (raw + noise) × 100 is above it")
	fl.Float64Var(&f.absolute, "absolute-margin", compare.DefaultAbsoluteMargin, "percent: a path is reported when |raw − noise| / answers × 100 is above it")
	fl.Float64Var(&f.alpha, "latency-alpha", history.DefaultAlpha, "significance level of the latency test: changed when its p is below it")
	fl.Float64Var(&f.minEffect, "latency-min-effect", history.DefaultMinEffect, "smallest move of the median or p95, as a fraction of the primary's, that counts as a latency change")
	addKnob(fl, "compare", "ignore", &f.ignore)
	fl.StringArrayVar(&f.normalize, "normalize", nil, "a normaliser beside uuid and timestamp: ids (repeatable)")
	fl.StringVarP(&f.output, "output", "o", "text", "what goes to stdout: text or json")
	fl.StringArrayVar(&f.reports, "report", nil, "also write the comparison to FILE: .json or .html (repeatable)")
	fl.BoolVar(&f.failOnDifference, "fail-on-difference", false, "exit 1 when a path changed")
	addKnob(fl, "compare", "speed", &f.speed)
	addKnob(fl, "compare", "order", &f.order)
	addKnob(fl, "compare", "seed", &f.seed)
	addKnob(fl, "compare", "timeout", &f.timeout)
	addKnob(fl, "compare", "ask-wait", &f.askWait)
	addKnob(fl, "compare", "sessions", &f.sessions)
	addKnob(fl, "compare", "max-line", (*byteSize)(&f.maxLine))
	addKnob(fl, "compare", "max-document", (*byteSize)(&f.maxDoc))
	addKnob(fl, "compare", "max-message", &f.maxMessage)
	fl.StringArrayVar(&f.headers, "header", nil, `an HTTP header "K:V" sent to every URL target; values may use ${ENV} (repeatable)`)
	fl.BoolVar(&f.notifications, "notifications", true, "compare the server's notifications the tape has too, each paired with the live one of its method in order; --notifications=false compares answers only")
	addKnob(fl, "compare", "config", &f.configPath)
	registerValues(cmd, "output", outputs...)
	registerValues(cmd, "speed", runSpeeds...)
	registerValues(cmd, "order", runOrders...)
	return cmd
}

func (a *app) compare(cmd *cobra.Command, tapeArg string, f compareFlags) error {
	if f.output != "text" && f.output != "json" {
		return usageError("-o %q: want text or json (--report FILE.html writes the HTML page)", f.output)
	}
	if f.speed == "stepped" {
		return usageError("--speed stepped: compare replays by itself; use fast, realtime, Nx, fixed: or rps: (replayctl debug steps)")
	}
	for _, p := range f.reports {
		if err := compare.CheckPath(p); err != nil {
			return usageError("--report: %w", err)
		}
	}
	primary, err := compareTarget("--primary", f.primary, f.headers)
	if err != nil {
		return err
	}
	candidate, err := compareTarget("--candidate", f.candidate, f.headers)
	if err != nil {
		return err
	}
	opts := []compare.Option{
		compare.RelativeMargin(f.relative), compare.AbsoluteMargin(f.absolute),
		compare.LatencyAlpha(f.alpha), compare.LatencyMinEffect(f.minEffect),
		compare.Ignore(f.ignore...), compare.Normalize(f.normalize...),
		compare.Notifications(f.notifications),
	}
	if f.secondary != "" {
		t, err := compareTarget("--secondary", f.secondary, f.headers)
		if err != nil {
			return err
		}
		opts = append(opts, compare.Secondary(t))
	}
	ropts := []replay.Option{replay.Logger(a.log)}
	cfg, err := configPath(cmd, f.configPath)
	if err != nil {
		return err
	}
	if cfg != "" {
		ropts = append(ropts, replay.ConfigFile(cfg))
	}
	ropts = append(ropts, replay.SpeedText(f.speed)) // fast unless given, whatever the config says
	ropts = append(ropts, given(cmd, []flagOption{
		{"order", func() replay.Option { return replay.Order(replay.Ordering(f.order)) }},
		{"timeout", func() replay.Option { return replay.Timeout(f.timeout) }},
		askWaitFlag(&f.askWait),
		{"sessions", func() replay.Option { return replay.Sessions(f.sessions) }},
		{"seed", func() replay.Option { return replay.Seed(f.seed) }},
		{"max-line", func() replay.Option { return replay.MaxLine(f.maxLine) }},
		{"max-document", func() replay.Option { return replay.MaxDocument(f.maxDoc) }},
		{"max-message", func() replay.Option { return replay.MaxMessage(int(f.maxMessage)) }},
	})...)
	opts = append(opts, compare.ReplayOptions(ropts...))
	src, err := a.loadTapeArg(cmd.Context(), tapeArg)
	if err != nil {
		return err
	}
	rep, err := compare.RunSource(cmd.Context(), src, primary, candidate, opts...)
	if err != nil {
		return compareError(cmd, err)
	}
	var buf strings.Builder // rendered whole: one Write, so that redaction sees every secret
	if f.output == "json" {
		err = rep.WriteJSON(&buf)
	} else {
		err = rep.WriteText(&buf)
	}
	if err != nil {
		return err
	}
	if _, err := fmt.Fprint(cmd.OutOrStdout(), buf.String()); err != nil {
		return err
	}
	var writeErr error
	for _, p := range f.reports {
		writeErr = errors.Join(writeErr, rep.WriteFile(p))
	}
	switch {
	case rep.Summary.TargetFailed > 0:
		return &exitError{code: exitTarget, err: errors.Join(fmt.Errorf("%d of the 3 runs' target failed (see the runs above)", rep.Summary.TargetFailed), writeErr)}
	case writeErr != nil:
		return fmt.Errorf("write report: %w", writeErr)
	case f.failOnDifference && rep.Different():
		return errDifferent
	}
	return nil
}

// compareTarget reads a target flag's value: an http(s) URL, or a server
// command after "cmd:".
func compareTarget(flag, value string, headers []string) (replay.Target, error) {
	const example = "e.g. http://127.0.0.1:3000/mcp or 'cmd:node server.js'"
	switch {
	case value == "" && flag == "--secondary":
		return replay.Target{}, usageError("%s: empty; give a target (%s) or leave the flag out", flag, example)
	case value == "":
		return replay.Target{}, usageError("%s: give the target (%s)", flag, example)
	case strings.HasPrefix(value, "cmd:"):
		argv, err := splitWords(strings.TrimPrefix(value, "cmd:"))
		if err != nil {
			return replay.Target{}, usageError("%s %q: %v", flag, value, err)
		}
		if len(argv) == 0 {
			return replay.Target{}, usageError("%s %q: no command after cmd:; %s", flag, value, example)
		}
		return replay.Command(argv[0], argv[1:]...), nil
	case strings.Contains(value, "://"):
		t := replay.HTTP(value)
		for _, h := range headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return replay.Target{}, usageError("--header %q: want K:V, e.g. \"Authorization:Bearer ${TOKEN}\"", h)
			}
			t = t.WithHeader(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		return t, nil
	}
	return replay.Target{}, usageError("%s %q: want an http(s):// URL or a command after cmd:, %s", flag, value, example)
}

// compareFlagOf names the flag behind each compare option, for errors.
var compareFlagOf = map[string]string{
	"RelativeMargin": "--relative-margin", "AbsoluteMargin": "--absolute-margin",
	"LatencyAlpha": "--latency-alpha", "LatencyMinEffect": "--latency-min-effect",
	"Ignore or Normalize": "--ignore or --normalize",
}

// compareError turns an error of compare.RunSource into the CLI's words
// and exit status.
func compareError(cmd *cobra.Command, err error) error {
	var oe *compare.OptionError
	var re *compare.RunError
	switch {
	case errors.As(err, &oe):
		if oe.Value == "" {
			return usageError("%s: %v", compareFlagOf[oe.Option], oe.Err)
		}
		return usageError("%s %s: %v", compareFlagOf[oe.Option], oe.Value, oe.Err)
	case cmd.Context().Err() != nil:
		return interrupted("nothing compared")
	case errors.As(err, &re):
		var ro *replay.OptionError
		if errors.As(re.Err, &ro) && (ro.Option == "HTTP" || ro.Option == "Command" || ro.Option == "WithHeader") {
			return usageError("--%s %s: %v", re.Role, ro.Value, ro.Err)
		}
		return fmt.Errorf("%s run: %w", re.Role, inputError(re.Err))
	}
	return err
}

// splitWords splits a command line into words as a POSIX shell does,
// without expanding anything: white space separates words; 'single quotes' keep
// everything; "double quotes" keep everything but \" \\ \$ \`; a
// backslash outside quotes keeps the next character.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("a backslash ends the command; escape it as \\\\")
			}
			i++
			w.WriteRune(rs[i])
			inWord = true
		case c == '\'':
			end := indexRune(rs, i+1, '\'')
			if end < 0 {
				return nil, fmt.Errorf("a single quote is not closed")
			}
			w.WriteString(string(rs[i+1 : end]))
			i, inWord = end, true
		case c == '"':
			i++
			for ; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[i+1]) {
					i++
				}
				w.WriteRune(rs[i])
			}
			if i == len(rs) {
				return nil, fmt.Errorf("a double quote is not closed")
			}
			inWord = true
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func indexRune(rs []rune, from int, r rune) int {
	for i := from; i < len(rs); i++ {
		if rs[i] == r {
			return i
		}
	}
	return -1
}
