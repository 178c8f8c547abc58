package validator

import (
	"fmt"
	"slices"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/internal/match"
)

// Subject is what a rule's scope looks at: the message whose answer is
// judged.
type Subject struct {
	Seq     int64
	Session string
	Method  string
	Kind    string // request, notification, response or error
	Request []byte // the message as sent, for a when predicate
}

// Predicate is a compiled scope "when" expression. An error means the
// expression failed on this message.
type Predicate func(Subject) (bool, error)

// scope is a compiled Scope. Set fields are ANDed.
type scope struct {
	method, kind, session string
	hasSeq                bool
	seqFrom, seqTo        int64
	when                  Predicate
}

// rule is a compiled validation rule; the Validator's default rule has
// an empty name and matches what no other rule does.
type rule struct {
	name     string // "validation rule 2 (line 14)", for errors
	scope    scope
	mode     Mode
	required []pattern
	ignore   []pattern // the Validator's, then the rule's own
	// compared is ignore and the opaque paths: what value comparisons
	// skip (a schema check sees the opaque members).
	compared   []pattern
	onFailure  string
	maxRetries int
}

// compileRule turns the i-th Rule into a rule. A rule with
// required_fields and no mode is partial; otherwise an empty mode is
// the Validator's. Errors are *RuleError.
func (v *Validator) compileRule(i int, c Rule) (rule, error) {
	r := rule{name: ruleName(i, c.Line), maxRetries: c.MaxRetries}
	fail := func(err error) (rule, error) {
		return rule{}, &RuleError{Index: i, Line: c.Line, Err: err}
	}
	var err error
	if r.scope, err = v.compileScope(c.Scope); err != nil {
		return fail(err)
	}
	switch {
	case c.Mode == "" && len(c.RequiredFields) > 0:
		r.mode = Partial
	case c.Mode == "":
		r.mode = v.mode
	default:
		if r.mode, err = ParseMode(string(c.Mode)); err != nil {
			return fail(err)
		}
	}
	if r.mode == Partial && len(c.RequiredFields) == 0 {
		return fail(fmt.Errorf("%w: mode partial compares only required_fields, and there are none; list them (required_fields: [\"result.tools[*].name\"]) or use mode structural", ErrConfig))
	}
	if r.mode != Partial && len(c.RequiredFields) > 0 {
		return fail(fmt.Errorf("%w: required_fields only apply in mode partial, this rule's mode is %s", ErrConfig, r.mode))
	}
	for j, s := range c.RequiredFields {
		p, err := parseKeyed(indexed("required_fields", j), s)
		if err != nil {
			return fail(err)
		}
		if p.IsRoot() {
			return fail(fmt.Errorf("%w: required field %q is the whole message; name fields (result.tools[*].name) or use mode exact", ErrConfig, s))
		}
		r.required = append(r.required, p)
	}
	r.ignore = slices.Clip(slices.Clone(v.ignore))
	for j, s := range c.IgnoreFields {
		p, err := parseKeyed(indexed("ignore_fields", j), s)
		if err != nil {
			return fail(err)
		}
		r.ignore = append(r.ignore, p)
	}
	if r.onFailure, err = parseOnFailure(c.OnFailure); err != nil {
		return fail(err)
	}
	switch {
	case c.MaxRetries < 0:
		return fail(fmt.Errorf("%w: max_retries %d is negative", ErrConfig, c.MaxRetries))
	case r.onFailure == OnFailureRetry && c.MaxRetries == 0:
		r.maxRetries = DefaultRetries
	}
	return r, nil
}

func (v *Validator) compileScope(c Scope) (scope, error) {
	s := scope{method: c.Method, session: c.Session}
	switch c.Kind {
	case "", "request", "notification", "response", "error":
		s.kind = c.Kind
	default:
		return s, fmt.Errorf("%w: scope kind %q; want request, notification, response or error", ErrConfig, c.Kind)
	}
	if r := c.Seq; r != nil {
		if r.From > r.To {
			return s, fmt.Errorf("%w: scope seq_range [%d %d]; want [from, to] with from <= to", ErrConfig, r.From, r.To)
		}
		s.hasSeq, s.seqFrom, s.seqTo = true, r.From, r.To
	}
	if c.When != "" {
		compile := v.compileWhen
		if compile == nil {
			compile = matchWhen
		}
		p, err := compile(c.When)
		if err != nil {
			return s, fmt.Errorf("%w: scope when: %w", ErrConfig, err)
		}
		s.when = p
	}
	if !c.Always && s.method == "" && s.kind == "" && s.session == "" && !s.hasSeq && s.when == nil {
		return s, fmt.Errorf("%w: empty scope matches nothing; write scope: {always: true} for every message, or scope by method, kind, seq, session or when", ErrConfig)
	}
	return s, nil
}

// match reports whether the scope matches s, whose recorded answer is
// expected. Kinds "response" and "error" also match a subject whose
// recorded answer holds a result, or an error. It does not allocate
// unless a when predicate does.
func (sc *scope) match(s Subject, expected []byte) (bool, error) {
	if sc.method != "" && s.Method != sc.method ||
		sc.session != "" && s.Session != sc.session ||
		sc.hasSeq && (s.Seq < sc.seqFrom || s.Seq > sc.seqTo) {
		return false, nil
	}
	if sc.kind != "" && s.Kind != sc.kind {
		k, _ := answerKind(expected)
		if !(sc.kind == "response" && k == 'r' || sc.kind == "error" && k == 'e') {
			return false, nil
		}
	}
	if sc.when != nil {
		ok, err := sc.when(s)
		if err != nil {
			return false, fmt.Errorf("scope when: %w", err)
		}
		return ok, nil
	}
	return true, nil
}

// matchWhen compiles a when expression in the language of debug
// breakpoints (package match). The expression sees the subject's seq,
// session, kind and method, and the id, params of the request; dir is
// empty.
func matchWhen(src string) (Predicate, error) {
	c, err := match.ParseExpr(src)
	if err != nil {
		return nil, err
	}
	return func(s Subject) (bool, error) {
		return c.Match(match.Msg{Seq: s.Seq, Session: s.Session, Kind: s.Kind, Method: s.Method, ID: rawID(s.Request), Raw: s.Request})
	}, nil
}

// rawID returns the raw JSON of a message's top-level id, or "".
func rawID(doc []byte) string {
	id := ""
	_ = jsonscan.Members(doc, func(m jsonscan.Member) bool {
		if string(m.Key) == "id" {
			id = string(doc[m.Start:m.End])
			return false
		}
		return true
	})
	return id
}

// answerKind says whether a message holds a top-level "result" ('r') or
// "error" ('e'), or neither (0), and returns that member's value.
func answerKind(doc []byte) (kind byte, val []byte) {
	_ = jsonscan.Members(doc, func(m jsonscan.Member) bool {
		switch string(m.Key) {
		case "result":
			kind, val = 'r', doc[m.Start:m.End]
		case "error":
			kind, val = 'e', doc[m.Start:m.End]
		}
		return true
	})
	return kind, val
}

// pick returns the first rule whose scope matches, or the default rule.
func (v *Validator) pick(s Subject, expected []byte) (*rule, error) {
	for i := range v.rules {
		r := &v.rules[i]
		ok, err := r.scope.match(s, expected)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.name, err)
		}
		if ok {
			return r, nil
		}
	}
	return &v.def, nil
}
