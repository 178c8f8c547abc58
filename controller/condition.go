package controller

import "github.com/replayctl/replayctl/internal/match"

// Kinds of a Condition (and of a Breakpoint); see package match.
const (
	KindSeq    = match.KindSeq    // a bare integer: the message with that seq
	KindMethod = match.KindMethod // a method name: every message with that method
	KindExpr   = match.KindExpr   // an expression over the decoded message
)

// Variables lists the names a condition expression can use; see the
// package documentation for what each holds.
var Variables = match.Variables

// Condition is a parsed breakpoint spec: match's condition, whose Match
// takes a Msg. It is immutable and safe for concurrent use.
type Condition = match.Condition

// ParseCondition reads a breakpoint spec with match.Parse: a bare integer
// is a seq, a word that looks like a method name (ping, tools/call) is a
// method, anything else is an expression that must give a bool. Errors
// wrap ErrBadCondition and name the spec and, for an expression, the
// column.
func ParseCondition(spec string) (*Condition, error) { return match.Parse(spec) }
