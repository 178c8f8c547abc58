package controller

import "github.com/replayctl/replayctl/match"

// Kinds of a Condition (and of a Breakpoint); see package match.
const (
	KindSeq    = match.KindSeq    // a bare integer: the message with that seq
	KindMethod = match.KindMethod // a method name: every message with that method
	KindExpr   = match.KindExpr   // an expression over the decoded message
)

// Variables lists the names a condition expression can use; see the
// package documentation for what each holds.
var Variables = match.Variables

// Condition is a parsed breakpoint spec, a match.Condition over a
// controller Msg. It is immutable and safe for concurrent use.
type Condition struct {
	c *match.Condition
}

// ParseCondition reads a breakpoint spec with match.Parse: a bare integer
// is a seq, a word that looks like a method name (ping, tools/call) is a
// method, anything else is an expression that must give a bool. Errors
// wrap ErrBadCondition and name the spec and, for an expression, the
// column.
func ParseCondition(spec string) (*Condition, error) {
	c, err := match.Parse(spec)
	if err != nil {
		return nil, err
	}
	return &Condition{c: c}, nil
}

// Spec returns the condition as given (spaces trimmed).
func (c *Condition) Spec() string { return c.c.Spec() }

// Kind returns KindSeq, KindMethod or KindExpr.
func (c *Condition) Kind() string { return c.c.Kind() }

// Match reports whether m matches; see match.Condition.Match.
func (c *Condition) Match(m Msg) (bool, error) { return c.c.Match(m.matchMsg()) }

// matchEnv is Match against the message of env, decoded once for all the
// breakpoints checked against it.
func (c *Condition) matchEnv(env *match.Env) (bool, error) { return c.c.MatchEnv(env) }

// matchMsg is what a condition sees of m.
func (m Msg) matchMsg() match.Msg {
	return match.Msg{Seq: m.Seq, Session: m.Session, Dir: m.Dir, Kind: m.Kind, Method: m.Method, ID: m.ID, Raw: m.Raw}
}
