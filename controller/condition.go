package controller

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// Kinds of a Condition (and of a Breakpoint).
const (
	KindSeq    = "seq"    // a bare integer: the message with that seq
	KindMethod = "method" // a method name: every message with that method
	KindExpr   = "expr"   // an expression over the decoded message
)

// Variables lists the names a condition expression can use; see the
// package documentation for what each holds.
var Variables = []string{"seq", "session", "dir", "kind", "method", "id", "params", "result", "error"}

// methodWord is what counts as a method name rather than an expression:
// words joined by slashes, as MCP methods are (ping, tools/call,
// notifications/initialized).
var methodWord = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_.$-]*(/[A-Za-z0-9_.$-]+)*$`)

// Condition is a parsed breakpoint spec. It is immutable and safe for
// concurrent use.
type Condition struct {
	spec   string
	kind   string
	seq    int64
	method string
	prog   *vm.Program
}

// ParseCondition reads a breakpoint spec: a bare integer is a seq, a word
// that looks like a method name (ping, tools/call) is a method, anything
// else is an expression compiled with github.com/expr-lang/expr that must
// give a bool. Errors wrap ErrBadCondition and name the spec and, for an
// expression, the column.
func ParseCondition(spec string) (*Condition, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, fmt.Errorf("%w: empty; want a seq (12), a method (tools/call) or an expression (method == \"ping\")", ErrBadCondition)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return nil, fmt.Errorf("%w %q: a seq is 0 or more", ErrBadCondition, spec)
		}
		return &Condition{spec: s, kind: KindSeq, seq: n}, nil
	}
	if methodWord.MatchString(s) && !isExprWord(s) {
		return &Condition{spec: s, kind: KindMethod, method: s}, nil
	}
	prog, err := expr.Compile(s,
		expr.Env(exprEnv{}),
		expr.AsBool(),
		expr.Patch(optionalMembers{}),
	)
	if err != nil {
		return nil, compileError(spec, err)
	}
	return &Condition{spec: s, kind: KindExpr, prog: prog}, nil
}

// isExprWord reports words that expr reads as values or variables, so
// that "true", "seq" or "params.name" are expressions, not methods.
func isExprWord(s string) bool {
	switch s {
	case "true", "false", "nil":
		return true
	}
	head, _, _ := strings.Cut(s, ".")
	return slices.Contains(Variables, head)
}

func compileError(spec string, err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fmt.Errorf("%w %q: column %d: %s (variables: %s)",
			ErrBadCondition, spec, fe.Column+1, fe.Message, strings.Join(Variables, ", "))
	}
	return fmt.Errorf("%w %q: %v", ErrBadCondition, spec, err)
}

// Spec returns the condition as given (spaces trimmed).
func (c *Condition) Spec() string { return c.spec }

// Kind returns KindSeq, KindMethod or KindExpr.
func (c *Condition) Kind() string { return c.kind }

// Match reports whether m matches. An expression that fails at run time
// (an index out of range, a bool expected) matches nothing and returns the
// error; it never panics. A missing member anywhere in a path
// (params.arguments.message with no params) is nil, not an error.
func (c *Condition) Match(m Msg) (bool, error) {
	if c.kind != KindExpr {
		return c.match(m, nil)
	}
	var env exprEnv
	return c.match(m, &env)
}

// match is Match with a lazily filled environment, shared by the
// breakpoints checked against one message (nil for seq and method).
func (c *Condition) match(m Msg, env *exprEnv) (bool, error) {
	switch c.kind {
	case KindSeq:
		return m.Seq == c.seq, nil
	case KindMethod:
		return m.Method == c.method, nil
	}
	env.fill(m)
	out, err := expr.Run(c.prog, env)
	if err != nil {
		return false, fmt.Errorf("condition %q at seq %d: %w", c.spec, m.Seq, err)
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("condition %q at seq %d: got %T, want a bool", c.spec, m.Seq, out)
	}
	return b, nil
}

// exprEnv is what an expression sees of a message.
type exprEnv struct {
	Seq     int64  `expr:"seq"`
	Session string `expr:"session"`
	Dir     string `expr:"dir"`
	Kind    string `expr:"kind"`
	Method  string `expr:"method"`
	ID      any    `expr:"id"`
	Params  any    `expr:"params"`
	Result  any    `expr:"result"`
	Error   any    `expr:"error"`

	filled bool
}

// fill decodes m once; a message that is not a JSON object leaves id,
// params, result and error nil.
func (e *exprEnv) fill(m Msg) {
	if e.filled {
		return
	}
	e.filled = true
	e.Seq, e.Session, e.Dir, e.Kind, e.Method = m.Seq, m.Session, m.Dir, m.Kind, m.Method
	var doc struct {
		ID     any `json:"id"`
		Params any `json:"params"`
		Result any `json:"result"`
		Error  any `json:"error"`
	}
	if json.Unmarshal(m.Raw, &doc) == nil {
		e.ID, e.Params, e.Result, e.Error = doc.ID, doc.Params, doc.Result, doc.Error
	}
}

// optionalMembers turns every member access a.b into a?.b, so that a path
// through a missing member gives nil instead of a run-time error. expr
// short-circuits an optional access to the end of its chain, so each access
// gets a chain of its own: a.b.c is read as ((a?.b)?.c).
type optionalMembers struct{}

func (optionalMembers) Visit(n *ast.Node) {
	m, ok := (*n).(*ast.MemberNode)
	if !ok || m.Method {
		return
	}
	m.Optional = true
	ast.Patch(n, &ast.ChainNode{Node: m})
}
