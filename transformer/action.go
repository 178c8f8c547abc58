package transformer

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// RuleError is what Compile returns for a rule that cannot be used.
type RuleError struct {
	Name  string // the rule's name; "" for a rule without one
	Index int    // 0-based position in the list
	Line  int    // RuleSpec.Line: where the rule starts in the config file; 0: unknown
	Err   error  // what is wrong
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("%s: %v", where(e.Name, e.Index, e.Line), e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

// label is how Outcome.Applied names a rule: its name, or #i (1-based).
func label(name string, i int) string {
	if name != "" {
		return name
	}
	return "#" + strconv.Itoa(i+1)
}

// where is how errors name a rule: `rule "fresh token" (line 12)`.
func where(name string, i, line int) string {
	s := "rule " + label(name, i)
	if name != "" {
		s = "rule " + strconv.Quote(name)
	}
	if line > 0 {
		s += fmt.Sprintf(" (line %d)", line)
	}
	return s
}

// rule is one compiled transformation.
type rule struct {
	name  string // for Outcome.Applied
	where string // for errors
	cond  cond
	acts  []action
}

type op uint8

const (
	opSetParam op = iota
	opRemoveParam
	opReplaceParam
	opSetResult
	opInjectError
	opRename
	opDelay
	opRegenerateID
	opDrop
)

// action is one compiled action of a rule.
type action struct {
	op    op
	path  Path
	value tmpl           // set_param, set_result, inject_error, rename_method: JSON
	re    *regexp.Regexp // replace_param
	delay time.Duration  // add_delay
}

var methodPath = MustParsePath("$.method")

func compileRule(i int, t RuleSpec, env func(string) (string, bool), secrets *[]string) (rule, error) {
	fail := func(err error) (rule, error) {
		// an unset variable is said plainly, whichever action it is in
		if env := (*EnvError)(nil); errors.As(err, &env) {
			err = env
		}
		return rule{}, &RuleError{Name: t.Name, Index: i, Line: t.Line, Err: err}
	}
	c, err := compileCond(t.Condition)
	if err != nil {
		return fail(err)
	}
	ru := rule{name: label(t.Name, i), where: where(t.Name, i, t.Line), cond: c}
	newB := func() *builder { return &builder{env: env, secrets: secrets} }
	a := t.Action
	if a.SetParam != nil {
		p, err := actionPath("set_param", a.SetParam.Path, "params")
		if err != nil {
			return fail(err)
		}
		b := newB()
		if err := b.value(a.SetParam.Value); err != nil {
			return fail(fmt.Errorf("set_param: value: %w", err))
		}
		ru.acts = append(ru.acts, action{op: opSetParam, path: p, value: b.done()})
	}
	if a.RemoveParam != nil {
		p, err := actionPath("remove_param", a.RemoveParam.Path, "params")
		if err != nil {
			return fail(err)
		}
		ru.acts = append(ru.acts, action{op: opRemoveParam, path: p})
	}
	if a.ReplaceParam != nil {
		p, err := actionPath("replace_param", a.ReplaceParam.Path, "params")
		if err != nil {
			return fail(err)
		}
		if a.ReplaceParam.Pattern == "" {
			return fail(errors.New("replace_param: pattern is empty; give a regular expression"))
		}
		re, err := regexp.Compile(a.ReplaceParam.Pattern)
		if err != nil {
			return fail(fmt.Errorf("replace_param: pattern: %w", err))
		}
		b := newB()
		if err := b.replacement(a.ReplaceParam.Replacement); err != nil {
			return fail(fmt.Errorf("replace_param: replacement: %w", err))
		}
		ru.acts = append(ru.acts, action{op: opReplaceParam, path: p, re: re, value: b.done()})
	}
	if a.SetResult != nil {
		p, err := actionPath("set_result", a.SetResult.Path, "result", "error")
		if err != nil {
			return fail(err)
		}
		b := newB()
		if err := b.value(a.SetResult.Value); err != nil {
			return fail(fmt.Errorf("set_result: value: %w", err))
		}
		ru.acts = append(ru.acts, action{op: opSetResult, path: p, value: b.done()})
	}
	if e := a.InjectError; e != nil {
		if e.Code == 0 {
			return fail(errors.New("inject_error: code is missing; give a JSON-RPC error code such as -32603"))
		}
		if e.Message == "" {
			return fail(errors.New("inject_error: message is missing"))
		}
		b := newB()
		b.raw([]byte(`{"code":` + strconv.Itoa(e.Code) + `,"message":`))
		err := b.value(e.Message)
		if err == nil && e.Data != nil {
			b.raw([]byte(`,"data":`))
			err = b.value(e.Data)
		}
		if err != nil {
			return fail(fmt.Errorf("inject_error: %w", err))
		}
		b.raw([]byte{'}'})
		ru.acts = append(ru.acts, action{op: opInjectError, value: b.done()})
	}
	if a.RenameMethod != nil {
		if a.RenameMethod.To == "" {
			return fail(errors.New("rename_method: to is missing; give the new method name"))
		}
		b := newB()
		if err := b.value(a.RenameMethod.To); err != nil {
			return fail(fmt.Errorf("rename_method: %w", err))
		}
		ru.acts = append(ru.acts, action{op: opRename, value: b.done()})
	}
	if a.AddDelay != 0 {
		if a.AddDelay < 0 {
			return fail(fmt.Errorf("add_delay: %s is negative", a.AddDelay))
		}
		ru.acts = append(ru.acts, action{op: opDelay, delay: a.AddDelay})
	}
	if a.RegenerateID {
		ru.acts = append(ru.acts, action{op: opRegenerateID})
	}
	if a.Drop {
		ru.acts = append(ru.acts, action{op: opDrop})
	}
	if len(ru.acts) == 0 {
		return fail(errors.New("action: none; give one of set_param, remove_param, replace_param, set_result, inject_error, rename_method, add_delay, regenerate_id, drop"))
	}
	return ru, nil
}

// actionPath parses the path of an action. It lies within the member
// under (params for the *_param actions, result for set_result): a path
// that does not start with one of roots is read below the first.
func actionPath(act, spec string, roots ...string) (Path, error) {
	if spec == "" {
		return Path{}, fmt.Errorf("%s: path is missing; give one like $.%s.name", act, roots[0])
	}
	p, err := ParsePath(spec)
	if err != nil {
		return Path{}, fmt.Errorf("%s: %w", act, err)
	}
	if p.IsRoot() {
		return Path{}, fmt.Errorf("%s: path $ is the whole message; give one like $.%s.name", act, roots[0])
	}
	for _, r := range roots {
		if p.first() == r {
			return p, nil
		}
	}
	return p.under(roots[0]), nil
}

// state is one Apply in progress.
type state struct {
	cur     []byte // the message as edited so far
	changed bool
	o       Outcome
	fill    fill
}

func (a *action) apply(st *state) error {
	var err error
	switch a.op {
	case opSetParam:
		err = st.set(a.path, a.value.expand(&st.fill))
	case opRemoveParam:
		var out []byte
		if out, err = RemovePath(st.cur, a.path); err == nil && len(out) != len(st.cur) {
			st.cur, st.changed = out, true
		}
	case opReplaceParam:
		err = a.replace(st)
	case opSetResult:
		st.o.ExpectEdits = append(st.o.ExpectEdits, Edit{Path: a.path, Value: a.value.expand(&st.fill)})
	case opInjectError:
		st.o.Error = a.value.expand(&st.fill)
	case opRename:
		var ok bool
		if _, ok, err = GetPath(st.cur, methodPath); err == nil && !ok {
			err = errors.New("rename_method: the message has no method (an answer?); narrow the condition, e.g. kind: request")
		}
		if err == nil {
			err = st.set(methodPath, a.value.expand(&st.fill))
		}
	case opDelay:
		st.o.Delay += a.delay
	case opRegenerateID:
		st.o.RegenerateID = true
	case opDrop:
		st.o.Drop = true
	}
	return err
}

func (st *state) set(p Path, v []byte) error {
	out, err := SetPath(st.cur, p, v)
	if err != nil {
		return err
	}
	st.cur, st.changed = out, true
	return nil
}

// replace rewrites the string at a.path by a.re; nothing when it is not
// there or nothing matches.
func (a *action) replace(st *state) error {
	v, ok, err := GetPath(st.cur, a.path)
	if err != nil || !ok {
		return err
	}
	if v[0] != '"' {
		return fmt.Errorf("replace_param: %s is %s, not a string", a.path, typeName(v[0]))
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return fmt.Errorf("replace_param: %s: %w", a.path, err)
	}
	r := a.re.ReplaceAllString(s, string(a.value.expand(&st.fill)))
	if r == s {
		return nil
	}
	return st.set(a.path, jsonscan.AppendString(nil, r))
}
