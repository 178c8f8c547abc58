package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/internal/editdist"
	"github.com/replayctl/replayctl/internal/jsonpath"
	"github.com/replayctl/replayctl/internal/match"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/validator"
)

// The values enum keys allow.
var (
	// validationModes are validator.Modes() but contract, which needs a
	// contract file (run --contract) that the config cannot name.
	validationModes = modeNames(validator.Modes(), validator.Contract)
	onFailures      = []string{"ignore", "warn", "error", "retry", "skip"}
	strategies      = []string{"continue", "pause", "stop", "retry"}
	messageKinds    = []string{"request", "notification", "response", "error"}
	normalizers     = []string{"uuid", "timestamp", "ids"}
	// faultKinds are chaos.Kinds(), the one list of fault kinds, by name.
	faultKinds = kindNames(chaos.Kinds())
	actionKeys = []string{"set_param", "remove_param", "replace_param", "set_result", "inject_error", "rename_method", "add_delay", "regenerate_id", "drop"}
)

// modeNames is the names of modes but those left out, in their order.
func modeNames(ms []validator.Mode, without ...validator.Mode) []string {
	var out []string
	for _, m := range ms {
		if !slices.Contains(without, m) {
			out = append(out, string(m))
		}
	}
	return out
}

// kindNames is the names of fault kinds, in their order.
func kindNames(ks []chaos.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// threshold is the shape of a threshold: a metric (k6's p(99) too), a
// filter in braces maybe, a comparison, a value ("p99<200ms",
// "error_rate<1%", "p99{method:tools/call}<200ms"). The report package
// reads its meaning.
var threshold = regexp.MustCompile(`^\s*[A-Za-z][A-Za-z0-9_().]*\s*(\{[^{}]*\})?\s*(<=|>=|==|!=|<|>)\s*\S+\s*$`)

// checker checks the values of a decoded file: what the YAML types alone
// do not say. lines holds the line of each key path, from the decoder.
type checker struct {
	file     string
	lines    map[string]int
	warnings []*Error
}

// errorf is an *Error at key; its line is the key's, or the nearest
// enclosing key's when the key itself is not written in the file.
func (c *checker) errorf(key, format string, a ...any) *Error {
	return &Error{Path: c.file, Line: c.line(key), Key: key, Msg: fmt.Sprintf(format, a...)}
}

func (c *checker) line(key string) int {
	for {
		if l, ok := c.lines[key]; ok {
			return l
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			return c.lines[""]
		}
		key = key[:i]
	}
}

// enum checks that v, when set, is one of allowed.
func (c *checker) enum(key, v, what string, allowed []string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	msg := fmt.Sprintf("%q is not a %s; want one of: %s", short(v), what, strings.Join(allowed, ", "))
	if s := editdist.Closest(v, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return c.errorf(key, "%s", msg)
}

func (c *checker) nonNegative(key string, d Duration) error {
	if d < 0 {
		return c.errorf(key, "want a duration of 0 or more, got %s", d.D())
	}
	return nil
}

func (c *checker) count(key string, n int) error {
	if n < 0 {
		return c.errorf(key, "want 0 or more, got %d", n)
	}
	return nil
}

// fraction checks a probability or ratio: finite, within [0, hi].
func (c *checker) fraction(key string, f, hi float64) error {
	if math.IsNaN(f) || f < 0 || f > hi {
		if math.IsInf(hi, 1) {
			return c.errorf(key, "want a finite number of 0 or more, got %v", f)
		}
		return c.errorf(key, "want a number from 0 to %v, got %v", hi, f)
	}
	return nil
}

func (c *checker) strings(key string, list []string, what string) error {
	for i, s := range list {
		if strings.TrimSpace(s) == "" {
			return c.errorf(fmt.Sprintf("%s[%d]", key, i), "an empty %s; remove it or write one", what)
		}
	}
	return nil
}

// paths checks a list of paths (ignore_fields, required_fields): each
// parses (internal/jsonpath, README "Paths"). The error joins every bad
// entry's, each at its own line and index. With ignore, a path that
// matches the whole answer ("$", "**") is a warning: it turns comparison
// off.
func (c *checker) paths(key string, list []string, ignore bool) error {
	var errs []error
	for i, s := range list {
		at := fmt.Sprintf("%s[%d]", key, i)
		if strings.TrimSpace(s) == "" {
			errs = append(errs, c.errorf(at, "an empty path; remove it or write one, such as result.content[*].annotations"))
			continue
		}
		p, err := jsonpath.Parse(s)
		if err != nil {
			errs = append(errs, c.errorf(at, "bad path %v", err))
			continue
		}
		if ignore && wholeAnswer(p) {
			c.warnings = append(c.warnings, c.errorf(at, "%q ignores the whole answer: every message matched passes unseen, and comparison is off; name the fields that change (result.serverInfo.version, **.timestamp), or set validation.enabled: false to turn validation off", short(s)))
		}
	}
	return errors.Join(errs...)
}

// wholeAnswer reports a pattern that matches the root of an answer,
// and so every path in it: "$", or "**" alone.
func wholeAnswer(p jsonpath.Pattern) bool {
	return p.IsRoot() || len(p.Elems) == 1 && p.Elems[0].Kind == jsonpath.AnyDepth
}

// check runs every check on f: the error joins each section's first
// failure and each rule's (transformations, validation rules), in file
// order.
func (c *checker) check(f *File) error {
	return allOf(
		func() error { return c.top(f) },
		func() error { return c.transformations(f.Transformations) },
		func() error { return c.validation(&f.Validation) },
		func() error { return c.errorHandling(&f.ErrorHandling) },
		func() error { return c.performance(&f.Performance) },
		func() error { return c.chaos(&f.Chaos) },
		func() error { return c.thresholds(f.Thresholds) },
	)
}

// allOf runs every check in order and joins their errors (nil when none
// failed).
func allOf(checks ...func() error) error {
	var errs []error
	for _, check := range checks {
		if err := check(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// firstOf runs checks in order and returns the first error, or nil.
func firstOf(checks ...func() error) error {
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) top(f *File) error {
	if f.Speed != "" {
		sp, err := scheduler.Parse(f.Speed)
		if err != nil {
			var se *scheduler.SpeedError
			if errors.As(err, &se) {
				return c.errorf("speed", "%q: %s", short(f.Speed), se.Reason)
			}
			return c.errorf("speed", "%v", err)
		}
		f.SpeedValue = sp
	}
	if err := firstOf(
		func() error { return c.nonNegative("start_offset", f.StartOffset) },
		func() error { return c.nonNegative("end_offset", f.EndOffset) },
		func() error { return c.strings("include_methods", f.IncludeMethods, "method") },
		func() error { return c.strings("exclude_methods", f.ExcludeMethods, "method") },
	); err != nil {
		return err
	}
	if f.EndOffset != 0 && f.EndOffset <= f.StartOffset {
		return c.errorf("end_offset", "%s is not after start_offset %s; the window would be empty (0s: to the end of the tape)", f.EndOffset.D(), f.StartOffset.D())
	}
	for i, m := range f.ExcludeMethods {
		if slices.Contains(f.IncludeMethods, m) {
			return c.errorf(fmt.Sprintf("exclude_methods[%d]", i), "%q is also in include_methods; keep it in one", short(m))
		}
	}
	return nil
}

// transformations checks each rule: the error joins each rule's first
// failure.
func (c *checker) transformations(ts []Transformation) error {
	var errs []error
	for i := range ts {
		if err := c.transformation(i, &ts[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *checker) transformation(i int, t *Transformation) error {
	key := fmt.Sprintf("transformations[%d]", i)
	t.Line = c.line(key)
	if t.Condition.empty() {
		return c.errorf(key+".condition", "the rule has no condition and would match nothing; write condition: { always: true } to apply it to every message")
	}
	if err := c.condition(key+".condition", &t.Condition); err != nil {
		return err
	}
	return c.action(key+".action", &t.Action)
}

// empty reports a condition with no key set.
func (cond *Condition) empty() bool {
	return !cond.Always && cond.MethodEquals == "" && cond.Method == "" && cond.Kind == "" &&
		cond.Seq == nil && cond.SeqRange == nil && cond.Session == "" && cond.When == ""
}

func (c *checker) condition(key string, cond *Condition) error {
	if cond.Method != "" && cond.MethodEquals != "" && cond.Method != cond.MethodEquals {
		return c.errorf(key+".method", "method %q and method_equals %q cannot both hold; keep one", short(cond.Method), short(cond.MethodEquals))
	}
	if err := c.enum(key+".kind", cond.Kind, "message kind", messageKinds); err != nil {
		return err
	}
	if cond.Seq != nil && cond.SeqRange != nil {
		return c.errorf(key+".seq_range", "seq and seq_range cannot both be set; keep one")
	}
	if cond.Seq != nil && *cond.Seq < 0 {
		return c.errorf(key+".seq", "want a seq of 0 or more, got %d", *cond.Seq)
	}
	if r := cond.SeqRange; r != nil {
		switch {
		case len(r) != 2:
			return c.errorf(key+".seq_range", "want two seqs [from, to], got %d", len(r))
		case r[0] < 0:
			return c.errorf(key+".seq_range", "want seqs of 0 or more, got %d", r[0])
		case r[0] > r[1]:
			return c.errorf(key+".seq_range", "from %d is after to %d; want [from, to] ascending", r[0], r[1])
		}
	}
	if cond.When != "" {
		if _, err := match.ParseExpr(cond.When); err != nil {
			return c.errorf(key+".when", "%s", strings.TrimPrefix(err.Error(), match.ErrBadCondition.Error()+": "))
		}
	}
	return nil
}

func (c *checker) action(key string, a *Action) error {
	if *a == (Action{}) {
		return c.errorf(key, "the action does nothing; set one of: %s", strings.Join(actionKeys, ", "))
	}
	if a.Drop && *a != (Action{Drop: true}) {
		return c.errorf(key+".drop", "drop with other actions: a dropped message is never sent, so the others would not apply; keep drop alone")
	}
	path := func(k, p string) error {
		if strings.TrimSpace(p) == "" {
			return c.errorf(key+"."+k+".path", "want a path such as $.params.arguments.city")
		}
		return nil
	}
	if a.SetParam != nil {
		if err := path("set_param", a.SetParam.Path); err != nil {
			return err
		}
	}
	if a.RemoveParam != nil {
		if err := path("remove_param", a.RemoveParam.Path); err != nil {
			return err
		}
	}
	if r := a.ReplaceParam; r != nil {
		if err := path("replace_param", r.Path); err != nil {
			return err
		}
		if r.Pattern == "" {
			return c.errorf(key+".replace_param.pattern", "want a regular expression")
		}
		if _, err := regexp.Compile(r.Pattern); err != nil {
			return c.errorf(key+".replace_param.pattern", "%v", err)
		}
	}
	if a.SetResult != nil {
		if err := path("set_result", a.SetResult.Path); err != nil {
			return err
		}
	}
	if e := a.InjectError; e != nil {
		if e.Code == 0 {
			return c.errorf(key+".inject_error.code", "want a JSON-RPC error code such as -32603")
		}
		if e.Message == "" {
			return c.errorf(key+".inject_error.message", "want the error's message")
		}
	}
	if a.RenameMethod != nil && strings.TrimSpace(a.RenameMethod.To) == "" {
		return c.errorf(key+".rename_method.to", "want the new method name")
	}
	return c.nonNegative(key+".add_delay", a.AddDelay)
}

// normalizer checks one entry of validation.normalize: a known name, or a
// regex that compiles and does not match the empty string.
func (c *checker) normalizer(key string, n Normalizer) error {
	if n.Regex == "" {
		if n.Placeholder != "" {
			return c.errorf(key+".regex", "a placeholder without a regex; want the regular expression whose matches become %q", n.Placeholder)
		}
		if n.Name == "" {
			return c.errorf(key, "an empty normaliser; want one of: %s, or {regex: …, placeholder: …}", strings.Join(normalizers, ", "))
		}
		return c.enum(key, n.Name, "normaliser", normalizers)
	}
	re, err := regexp.Compile(n.Regex)
	if err != nil {
		return c.errorf(key+".regex", "%q is not a regular expression (Go RE2 syntax): %v", short(n.Regex), err)
	}
	if re.MatchString("") {
		return c.errorf(key+".regex", "%q matches the empty string; make it match only the value that changes, e.g. 'req-[0-9a-f]{8}'", short(n.Regex))
	}
	return nil
}

func (c *checker) validation(v *Validation) error {
	// Every bad path is listed, here and in the rules, with the
	// section's or the rule's first failure of another kind.
	var errs []error
	if err := c.paths("validation.ignore_fields", v.IgnoreFields, true); err != nil {
		errs = append(errs, err)
	}
	if err := firstOf(
		func() error { return c.enum("validation.mode", v.Mode, "validation mode", validationModes) },
		func() error { return c.fraction("validation.tolerance.numeric", v.Tolerance.Numeric, math.Inf(1)) },
		func() error { return c.fraction("validation.tolerance.relative", v.Tolerance.Relative, math.Inf(1)) },
	); err != nil {
		return errors.Join(append(errs, err)...)
	}
	for i, n := range v.Normalize {
		if err := c.normalizer(fmt.Sprintf("validation.normalize[%d]", i), n); err != nil {
			return errors.Join(append(errs, err)...)
		}
	}
	for i := range v.Rules {
		if err := c.rule(i, &v.Rules[i], v.Mode); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rule checks a validation rule; defaultMode is validation.mode.
func (c *checker) rule(i int, r *ValidationRule, defaultMode string) error {
	key := fmt.Sprintf("validation.rules[%d]", i)
	r.Line = c.line(key)
	paths := errors.Join(
		c.paths(key+".required_fields", r.RequiredFields, false),
		c.paths(key+".ignore_fields", r.IgnoreFields, true),
	)
	if err := firstOf(
		func() error { return c.condition(key+".scope", &r.Scope) },
		func() error { return c.enum(key+".mode", r.Mode, "validation mode", validationModes) },
		func() error { return c.enum(key+".on_failure", r.OnFailure, "failure action", onFailures) },
		func() error { return c.count(key+".max_retries", r.MaxRetries) },
	); err != nil {
		return errors.Join(paths, err)
	}
	if paths != nil {
		return paths
	}
	// The validator's rule: required_fields without a mode means
	// partial; no mode otherwise is validation.mode's.
	mode := r.Mode
	if mode == "" && len(r.RequiredFields) == 0 {
		mode = defaultMode
	}
	if mode == "partial" && len(r.RequiredFields) == 0 {
		return c.errorf(key+".mode", "partial compares only required_fields, and the rule lists none; add required_fields")
	}
	if r.Mode != "" && r.Mode != "partial" && len(r.RequiredFields) > 0 {
		return c.errorf(key+".required_fields", "required_fields apply only in mode partial, and this rule's mode is %s", r.Mode)
	}
	if r.MaxRetries > 0 && r.OnFailure != "retry" {
		return c.errorf(key+".max_retries", "max_retries applies only with on_failure: retry")
	}
	return nil
}

func (c *checker) errorHandling(e *ErrorHandling) error {
	if err := c.enum("error_handling.strategy", e.Strategy, "strategy", strategies); err != nil {
		return err
	}
	if e.MaxRetries != nil {
		if err := c.count("error_handling.max_retries", *e.MaxRetries); err != nil {
			return err
		}
	}
	return c.nonNegative("error_handling.retry_delay", e.RetryDelay)
}

// MaxSessions bounds performance.sessions, as replay.MaxSessions bounds
// --sessions: each virtual session has a connection.
const MaxSessions = 100_000

func (c *checker) performance(p *Performance) error {
	return firstOf(
		func() error { return c.count("performance.max_inflight", p.MaxInflight) },
		func() error {
			if p.Sessions != 0 && (p.Sessions < 1 || p.Sessions > MaxSessions) {
				return c.errorf("performance.sessions", "want 1 to %d virtual sessions (as --sessions), got %d", MaxSessions, p.Sessions)
			}
			return nil
		},
		func() error { return c.nonNegative("performance.ramp", p.Ramp) },
		func() error { return c.nonNegative("performance.timeout", p.Timeout) },
		func() error {
			if p.Spin == nil {
				return nil
			}
			if *p.Spin > Duration(scheduler.MaxSpin) {
				return c.errorf("performance.spin", "want at most %s (e.g. 1ms), got %s: a session keeps a core busy that long before each message", scheduler.MaxSpin, p.Spin.D())
			}
			return c.nonNegative("performance.spin", *p.Spin)
		},
	)
}

func (c *checker) chaos(ch *Chaos) error {
	names := make([]string, 0, len(ch.Faults))
	for name := range ch.Faults {
		names = append(names, name)
	}
	slices.Sort(names)
	sum := 0.0
	seen := map[string]string{} // kind → the name it was written as
	for _, name := range names {
		key := "chaos.faults." + name
		kind := faultKind(name)
		if !slices.Contains(faultKinds, kind) {
			return c.errorf("chaos.faults", "%s", unknownKey(name, "chaos.faults", faultKinds))
		}
		if other, dup := seen[kind]; dup {
			return c.errorf(key, "%q and %q are the same fault; give it once", other, name)
		}
		seen[kind] = name
		if err := c.fraction(key, ch.Faults[name], 1); err != nil {
			return err
		}
		sum += ch.Faults[name]
	}
	if sum > 1+1e-9 {
		return c.errorf("chaos.faults", "the probabilities add up to %.6g, more than 1 (a message gets at most one fault); lower some", sum)
	}
	for i, t := range ch.Targets {
		key := fmt.Sprintf("chaos.targets[%d]", i)
		if t.Fault == "" {
			return c.errorf(key+".fault", "want the fault to inject, one of: %s", strings.Join(faultKinds, ", "))
		}
		if strings.TrimSpace(t.Method) == "" {
			return c.errorf(key+".method", "want the method to aim at, such as tools/call")
		}
		if err := firstOf(
			func() error { return c.enum(key+".fault", faultKind(t.Fault), "fault", faultKinds) },
			func() error { return c.count(key+".nth", t.Nth) },
			func() error { return c.fraction(key+".probability", t.Probability, 1) },
		); err != nil {
			return err
		}
		if t.Nth == 0 && t.Probability == 0 {
			return c.errorf(key, "the target never fires; set nth (the Nth call, from 1) or probability")
		}
	}
	return nil
}

// faultKind spells a fault name as chaos.ParseKind reads it: case and
// surrounding space do not matter, and "_" may stand for "-".
func faultKind(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "-")
}

func (c *checker) thresholds(ts []string) error {
	for i, t := range ts {
		if !threshold.MatchString(t) {
			return c.errorf(fmt.Sprintf("thresholds[%d]", i), "%q is not a threshold; want a metric, a comparison and a value, such as p99<200ms, error_rate<1%% or validation_failed==0", short(t))
		}
		if _, err := report.ParseThreshold(t); err != nil {
			return c.errorf(fmt.Sprintf("thresholds[%d]", i), "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), report.ErrThreshold.Error()), " "))
		}
	}
	return nil
}
