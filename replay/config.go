// The one place where a config file (package config) meets the packages
// it configures: the file's sections become their own option types —
// validator.Rule, transformer.RuleSpec, chaos.Target — and a report's
// faults chaos.Injected, so that the stage packages import neither config
// nor report.

package replay

import (
	"cmp"
	"fmt"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/validator"
)

// validatorRules returns the Validator of a config file's validation
// section, with extraIgnore (the --ignore flags) added to its
// ignore_fields and opts applied after it. Errors wrap
// validator.ErrConfig or validator.ErrPattern and name the key
// ("validation.mode: …"), or are a *validator.RuleError naming the rule
// and its line ("validation rule 2 (line 14): …"); the first in file
// order is returned.
func validatorRules(c config.Validation, extraIgnore []string, opts ...validator.Option) (*validator.Validator, error) {
	mode, err := validator.ParseMode(c.Mode)
	if err != nil {
		return nil, fmt.Errorf("validation.mode: %w", err)
	}
	// The rules before one that cannot be translated still go to New, so
	// that an error New finds in them comes first, as in the file.
	rules := make([]validator.Rule, 0, len(c.Rules))
	var ruleErr error
	for i, r := range c.Rules {
		vr, err := validatorRule(r)
		if err != nil {
			ruleErr = &validator.RuleError{Index: i, Line: r.Line, Err: err}
			break
		}
		rules = append(rules, vr)
	}
	keyed := func(key string, o validator.Option) validator.Option {
		return func(v *validator.Validator) error {
			if err := o(v); err != nil {
				return fmt.Errorf("validation.%s: %w", key, err)
			}
			return nil
		}
	}
	base := []validator.Option{
		validator.WithMode(mode),
		keyed("ignore_fields", validator.WithIgnore(c.IgnoreFields...)),
		validator.WithIgnore(extraIgnore...),
	}
	for i, n := range c.Normalize { // a name, or a regex and its placeholder
		key := fmt.Sprintf("normalize[%d]", i)
		if n.Regex == "" {
			base = append(base, keyed(key, validator.WithNormalize(n.Name)))
			continue
		}
		base = append(base, keyed(key, validator.WithNormalizePattern(n.Regex, cmp.Or(n.Placeholder, config.DefaultPlaceholder))))
	}
	base = append(base,
		keyed("tolerance", validator.WithTolerance(c.Tolerance.Numeric, c.Tolerance.Relative)),
		validator.WithRules(rules...),
	)
	if c.Enabled != nil && !*c.Enabled {
		base = append(base, validator.WithDisabled())
	}
	v, err := validator.New(append(base, opts...)...)
	if err != nil {
		return nil, err
	}
	if ruleErr != nil {
		return nil, ruleErr
	}
	return v, nil
}

// validatorRule translates one validation rule. Its errors, wrapping
// validator.ErrConfig, are what the config can say and a validator.Scope
// cannot: two methods, seq with seq_range, a seq_range that is not two
// seqs.
func validatorRule(r config.ValidationRule) (validator.Rule, error) {
	c := r.Scope
	s := validator.Scope{Always: c.Always, Method: c.Method, Kind: c.Kind, Session: c.Session, When: c.When}
	if c.MethodEquals != "" {
		if c.Method != "" && c.Method != c.MethodEquals {
			return validator.Rule{}, fmt.Errorf("%w: scope has method %q and method_equals %q; give one", validator.ErrConfig, c.Method, c.MethodEquals)
		}
		s.Method = c.MethodEquals
	}
	switch {
	case c.Seq != nil && c.SeqRange != nil:
		return validator.Rule{}, fmt.Errorf("%w: scope has seq and seq_range; give one", validator.ErrConfig)
	case c.Seq != nil:
		s.Seq = &validator.SeqRange{From: *c.Seq, To: *c.Seq}
	case c.SeqRange != nil:
		if len(c.SeqRange) != 2 {
			return validator.Rule{}, fmt.Errorf("%w: scope seq_range %v; want [from, to] with from <= to", validator.ErrConfig, c.SeqRange)
		}
		s.Seq = &validator.SeqRange{From: c.SeqRange[0], To: c.SeqRange[1]}
	}
	return validator.Rule{
		Scope:          s,
		Mode:           validator.Mode(r.Mode),
		RequiredFields: r.RequiredFields,
		IgnoreFields:   r.IgnoreFields,
		OnFailure:      r.OnFailure,
		MaxRetries:     r.MaxRetries,
		Line:           r.Line,
	}, nil
}

// transformRules compiles a config file's transformations, with opts
// (the environment, clock and UUIDs of transformer.Compile). Errors are
// *transformer.RuleError naming the rule and its line; the first in file
// order is returned.
func transformRules(ts []config.Transformation, opts ...transformer.Option) (*transformer.Rules, error) {
	specs := make([]transformer.RuleSpec, 0, len(ts))
	for i, t := range ts {
		s, err := transformRule(t)
		if err != nil {
			// An error in the rules before this one comes first.
			if _, cerr := transformer.Compile(specs, opts...); cerr != nil {
				return nil, cerr
			}
			return nil, &transformer.RuleError{Name: t.Name, Index: i, Line: t.Line, Err: err}
		}
		specs = append(specs, s)
	}
	return transformer.Compile(specs, opts...)
}

// transformRule translates one transformation. Its errors are what the
// config can say and a transformer.Condition cannot: two methods, a
// seq_range that is not two seqs.
func transformRule(t config.Transformation) (transformer.RuleSpec, error) {
	c := t.Condition
	cond := transformer.Condition{Always: c.Always, Method: c.MethodEquals, Kind: c.Kind, Seq: c.Seq, Session: c.Session, When: c.When}
	if c.Method != "" {
		if c.MethodEquals != "" && c.MethodEquals != c.Method {
			return transformer.RuleSpec{}, fmt.Errorf("condition: method %q and method_equals %q differ; keep one", c.Method, c.MethodEquals)
		}
		cond.Method = c.Method
	}
	if r := c.SeqRange; r != nil {
		if len(r) != 2 {
			return transformer.RuleSpec{}, fmt.Errorf("condition: seq_range %v: want [from, to] with 0 <= from <= to", r)
		}
		cond.SeqRange = &transformer.SeqRange{From: r[0], To: r[1]}
	}
	a := t.Action
	act := transformer.Action{
		SetParam:     setValue(a.SetParam),
		SetResult:    setValue(a.SetResult),
		AddDelay:     a.AddDelay.D(),
		RegenerateID: a.RegenerateID,
		Drop:         a.Drop,
	}
	if p := a.RemoveParam; p != nil {
		act.RemoveParam = &transformer.Remove{Path: p.Path}
	}
	if r := a.ReplaceParam; r != nil {
		act.ReplaceParam = &transformer.Replace{Path: r.Path, Pattern: r.Pattern, Replacement: r.Replacement}
	}
	if e := a.InjectError; e != nil {
		act.InjectError = &transformer.InjectError{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	if r := a.RenameMethod; r != nil {
		act.RenameMethod = &transformer.Rename{To: r.To}
	}
	return transformer.RuleSpec{Name: t.Name, Line: t.Line, Condition: cond, Action: act}, nil
}

func setValue(v *config.SetValue) *transformer.SetValue {
	if v == nil {
		return nil
	}
	return &transformer.SetValue{Path: v.Path, Value: v.Value}
}

// chaosTargets translates the config's chaos.targets. The fault names go
// as written: chaos.NewPlan reads them, and names a bad one.
func chaosTargets(ts []config.ChaosTarget) []chaos.Target {
	out := make([]chaos.Target, 0, len(ts))
	for _, t := range ts {
		out = append(out, chaos.Target{Method: t.Method, Nth: t.Nth, Fault: chaos.Kind(t.Fault), Probability: t.Probability})
	}
	return out
}

// chaosFaultsFromReport translates the faults an earlier run's report
// lists (--chaos-from), for chaos.FromReport, which reads their kinds and
// names a bad one.
func chaosFaultsFromReport(faults []report.Fault) []chaos.Injected {
	out := make([]chaos.Injected, 0, len(faults))
	for _, f := range faults {
		out = append(out, chaos.Injected{Seq: f.Seq, Session: f.Session, Kind: chaos.Kind(f.Kind), Detail: f.Detail})
	}
	return out
}

// Validator is the validator of a config file's validation section
// (file may be nil: no section), with ignore (the --ignore flags) added
// to its ignore_fields and opts applied after it, for other commands
// that compare values the way a replay does (replayctl diff). Errors
// are those of the section, naming the key or the rule and its line.
func Validator(file *config.File, ignore []string, opts ...validator.Option) (*validator.Validator, error) {
	var c config.Validation
	if file != nil {
		c = file.Validation
	}
	return validatorRules(c, ignore, opts...)
}
