package match

import (
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

	"github.com/replayctl/replayctl/internal/httpmeta"
)

// ErrBadCondition is wrapped by every error of Parse.
var ErrBadCondition = errors.New("match: bad condition")

// Kinds of a Condition.
const (
	KindSeq    = "seq"    // a bare integer: the message with that seq
	KindMethod = "method" // a method name: every message with that method
	KindExpr   = "expr"   // an expression over the decoded message
)

// Variables lists the names an expression can use; see the package
// documentation for what each holds.
var Variables = []string{"seq", "session", "dir", "kind", "method", "id", "params", "result", "error"}

// Msg is what a condition sees of a message.
type Msg struct {
	Seq     int64
	Session string
	Dir     string // "c2s" or "s2c"
	Kind    string // request, notification, response, error
	Method  string
	ID      string // the raw JSON id, or ""
	Raw     []byte // the message's JSON bytes
	// HTTP is the recorded transport metadata of a tape's message, for
	// a front end to show (the debugger's print); conditions do not see
	// it, and it may be nil.
	HTTP *httpmeta.Meta
}

// methodWord is what counts as a method name rather than an expression:
// words joined by slashes, as MCP methods are (ping, tools/call,
// notifications/initialized).
var methodWord = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_.$-]*(/[A-Za-z0-9_.$-]+)*$`)

// Condition is a parsed spec. It is immutable and safe for concurrent use.
type Condition struct {
	spec   string
	kind   string
	seq    int64
	method string
	prog   *vm.Program
}

// Parse reads a spec: a bare integer is a seq, a word that looks like a
// method name (ping, tools/call) is a method, anything else is an
// expression compiled with github.com/expr-lang/expr that must give a
// bool. Errors wrap ErrBadCondition and name the spec and, for an
// expression, the column.
func Parse(spec string) (*Condition, error) {
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
	return ParseExpr(s)
}

// ParseExpr reads spec as an expression only, even when it is a bare
// integer or a method name (which then fail: they do not give a bool).
// Use it where a spec is known to be an expression, as the "when:" key of
// a rule is.
func ParseExpr(spec string) (*Condition, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, fmt.Errorf("%w: empty expression; want one like method == \"ping\"", ErrBadCondition)
	}
	prog, err := expr.Compile(s,
		expr.Env(vars{}),
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
	switch c.kind {
	case KindSeq:
		return m.Seq == c.seq, nil
	case KindMethod:
		return m.Method == c.method, nil
	}
	var e Env
	e.Reset(m)
	return c.MatchEnv(&e)
}

// MatchEnv is Match against the message of e, which is decoded on the
// first expression that needs it and kept for the next conditions.
func (c *Condition) MatchEnv(e *Env) (bool, error) {
	switch c.kind {
	case KindSeq:
		return e.m.Seq == c.seq, nil
	case KindMethod:
		return e.m.Method == c.method, nil
	}
	e.fill()
	out, err := expr.Run(c.prog, &e.v)
	if err != nil {
		return false, fmt.Errorf("condition %q at seq %d: %w", c.spec, e.m.Seq, err)
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("condition %q at seq %d: got %T, want a bool", c.spec, e.m.Seq, out)
	}
	return b, nil
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
