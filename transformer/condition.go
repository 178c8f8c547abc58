package transformer

import (
	"fmt"
	"slices"

	"github.com/replayctl/replayctl/internal/match"
)

// cond is a compiled Condition: its set fields, ANDed.
type cond struct {
	method   string
	kind     string
	session  string
	seq      int64
	from, to int64
	hasSeq   bool
	hasRange bool
	when     *match.Condition
}

var kinds = []string{"request", "notification", "response", "error"}

// compileCond checks c. An empty condition is refused: a rule that
// matches nothing is a mistake; "always: true" matches everything.
func compileCond(c Condition) (cond, error) {
	var out cond
	out.method = c.Method
	if c.Kind != "" {
		if !slices.Contains(kinds, c.Kind) {
			return out, fmt.Errorf("condition: kind %q is not one of request, notification, response, error", c.Kind)
		}
		out.kind = c.Kind
	}
	out.session = c.Session
	if c.Seq != nil {
		if *c.Seq < 0 {
			return out, fmt.Errorf("condition: seq %d: a seq is 0 or more", *c.Seq)
		}
		out.seq, out.hasSeq = *c.Seq, true
	}
	if r := c.SeqRange; r != nil {
		if r.From < 0 || r.From > r.To {
			return out, fmt.Errorf("condition: seq_range [%d %d]: want [from, to] with 0 <= from <= to", r.From, r.To)
		}
		out.from, out.to, out.hasRange = r.From, r.To, true
	}
	if c.When != "" {
		w, err := match.Parse(c.When)
		if err != nil {
			return out, fmt.Errorf("condition: when: %w", err)
		}
		out.when = w
	}
	empty := out.method == "" && out.kind == "" && out.session == "" && !out.hasSeq && !out.hasRange && out.when == nil
	if empty && !c.Always {
		return out, fmt.Errorf("condition: empty; set always: true, or one of method_equals, kind, seq, seq_range, session, when")
	}
	return out, nil
}

// match reports whether m matches c: the cheap fields first, the "when"
// expression last, decoding m into *env on first need.
func (c *cond) match(m *Msg, env **match.Env) (bool, error) {
	if (c.method != "" && m.Method != c.method) ||
		(c.kind != "" && m.Kind != c.kind) ||
		(c.session != "" && m.Session != c.session) ||
		(c.hasSeq && m.Seq != c.seq) ||
		(c.hasRange && (m.Seq < c.from || m.Seq > c.to)) {
		return false, nil
	}
	if c.when == nil {
		return true, nil
	}
	if *env == nil {
		*env = new(match.Env)
		(*env).Reset(*m)
	}
	return c.when.MatchEnv(*env)
}
