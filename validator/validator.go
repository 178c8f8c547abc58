package validator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// DiffKind says how a value differs.
type DiffKind string

// The kinds of difference Check and Compare report.
const (
	DiffChanged DiffKind = "changed" // same JSON type, different value
	DiffAdded   DiffKind = "added"   // in actual only
	DiffRemoved DiffKind = "removed" // in expected only
	DiffType    DiffKind = "type"    // different JSON types (say string vs number)
	// DiffMissing is a member the mode requires that actual lacks: a
	// required field (partial) missing on both sides, or a member MCP
	// requires (schema). Expected says what was required.
	DiffMissing DiffKind = "missing"
	// DiffSuccessToError and DiffErrorToSuccess name an error transition
	// (Check only): the recording answered with a result and the target
	// with an error, or the reverse. Path is "$"; Expected and Actual are
	// the recorded and the live "result" or "error" member.
	DiffSuccessToError DiffKind = "success→error"
	DiffErrorToSuccess DiffKind = "error→success"
	// DiffTruncated is the last entry of a list cut at MaxDifferences: its
	// Path is empty and its Actual is how many differences were left out.
	DiffTruncated DiffKind = "truncated"
)

// MaxDifferences is how many differences Check and Compare list for one
// message.
const MaxDifferences = 100

// Difference is one place where actual differs from expected. Expected and
// Actual are the compacted JSON values there; one of them is empty for
// added and removed values.
type Difference struct {
	Path     string          `json:"path"`
	Expected json.RawMessage `json:"expected,omitempty"`
	Actual   json.RawMessage `json:"actual,omitempty"`
	Kind     DiffKind        `json:"kind"`
}

// ErrNotJSON is wrapped by the error Compare returns when a side is not
// well-formed JSON.
var ErrNotJSON = errors.New("validator: not valid JSON")

// ErrConfig is wrapped by the errors New returns for a bad mode,
// normaliser, tolerance or rule.
var ErrConfig = errors.New("validator: bad validation config")

// Validator compares expected and actual messages. It is immutable after
// New and safe for concurrent use.
type Validator struct {
	ignore      []pattern
	mode        Mode
	norm        normalizer
	tol         tolerance
	disabled    bool
	compileWhen func(string) (Predicate, error)
	specs       []Rule // compiled into rules by New

	rules    []rule
	def      rule          // when no rule matches
	contract AnswerChecker // mode contract's; nil without WithContract
}

// AnswerChecker judges a live answer alone against what was drawn
// beforehand from recordings (a contract: package contract). It is what
// the contract mode checks besides the shape MCP requires. It must be
// safe for concurrent use.
type AnswerChecker interface {
	// CheckAnswer returns where the answer actual (a whole JSON-RPC
	// message) to the request s differs from what the checker expects;
	// nil when it does not.
	CheckAnswer(s Subject, actual []byte) []Difference
}

// WithContract makes c the contract of mode contract, and that mode the
// default. Without it, mode contract is refused.
func WithContract(c AnswerChecker) Option {
	return func(v *Validator) error {
		v.contract, v.mode = c, Contract
		return nil
	}
}

// Option configures a Validator.
type Option func(*Validator) error

// WithIgnore adds paths that are not compared, as patterns (see the
// package documentation): "result.content[*].annotations", "**.timestamp",
// "result.serverInfo.version", "error.data". New fails on a malformed
// pattern and names it. They apply to every rule.
func WithIgnore(paths ...string) Option {
	return func(v *Validator) error {
		for _, s := range paths {
			p, err := parsePattern(s)
			if err != nil {
				return err
			}
			v.ignore = append(v.ignore, p)
		}
		return nil
	}
}

// WithMode sets the mode of messages no rule matches (Exact by default).
func WithMode(m Mode) Option {
	return func(v *Validator) error {
		mm, err := ParseMode(string(m))
		v.mode = mm
		return err
	}
}

// WithNormalize turns on normalisers by name: "uuid", "timestamp", "ids"
// (see the package documentation). An unknown name is an error that
// lists the known ones.
func WithNormalize(names ...string) Option {
	return func(v *Validator) error {
		set, err := parseNormalizers(names)
		v.norm.set |= set
		return err
	}
}

// WithNormalizePattern adds a normaliser of the user's own: in every
// string compared, each match of pattern (a Go regular expression, RE2
// syntax) becomes placeholder, literally, on both sides, so that a
// volatile value inside a text ("took 12 ms", "request req-8f3a") is
// tolerated while the rest of the text is still compared. Patterns apply
// in the order given, before the named normalisers. A pattern that does
// not compile, or matches the empty string, is an error.
func WithNormalizePattern(pattern, placeholder string) Option {
	return func(v *Validator) error {
		p, err := compilePattern(pattern, placeholder)
		if err != nil {
			return err
		}
		v.norm.patterns = append(v.norm.patterns, p)
		return nil
	}
}

// WithTolerance lets numbers differ by up to abs, or by up to rel times
// the expected value. Both must be finite and not negative.
func WithTolerance(abs, rel float64) Option {
	return func(v *Validator) error {
		for _, t := range [...]float64{abs, rel} {
			if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
				return fmt.Errorf("%w: tolerance %v; want a finite number, 0 or more", ErrConfig, t)
			}
		}
		v.tol = tolerance{abs, rel}
		return nil
	}
}

// WithRules adds validation rules, tried in order; the first whose scope
// matches a message decides its mode, required and ignored fields and
// on_failure. New compiles them; an error is a *RuleError naming the rule
// (its place among all the rules added, and its line).
func WithRules(rules ...Rule) Option {
	return func(v *Validator) error {
		v.specs = append(v.specs, rules...)
		return nil
	}
}

// WithWhen replaces the compiler of scope "when" expressions, which is
// by default the language of debug breakpoints (package match; see
// Subject for what an expression sees).
func WithWhen(compile func(expr string) (Predicate, error)) Option {
	return func(v *Validator) error {
		v.compileWhen = compile
		return nil
	}
}

// WithDisabled turns validation off: Check and Compare find no
// differences.
func WithDisabled() Option {
	return func(v *Validator) error {
		v.disabled = true
		return nil
	}
}

// opaque are the paths of values MCP servers make anew for each request,
// which no two runs share and a client only echoes or reads the time
// from: the requestState of a multi-round result (2026-07-28); a task's
// id and times, flat (a 2026 task, tasks/get, tasks/cancel) or under
// "task" (a 2025-11-25 task-creating result), and the related task a
// task's result names. They are never compared; the engine sends the live
// value back where the recording echoed the recorded one.
var opaque = []string{
	"result.requestState",
	"result.taskId", "result.createdAt", "result.lastUpdatedAt",
	"result.task.taskId", "result.task.createdAt", "result.task.lastUpdatedAt",
	`result._meta["io.modelcontextprotocol/related-task"].taskId`,
}

// New returns a Validator configured by opts. The paths of opaque values
// (a multi-round result's requestState, a task's id and times) are always
// ignored.
func New(opts ...Option) (*Validator, error) {
	v := &Validator{mode: Exact}
	for _, o := range opts {
		if err := o(v); err != nil {
			return nil, err
		}
	}
	v.def = rule{mode: v.mode, ignore: v.ignore, onFailure: OnFailureError}
	if v.contract == nil && (v.mode == Contract || slices.ContainsFunc(v.specs, func(r Rule) bool { return r.Mode == Contract })) {
		return nil, fmt.Errorf("%w: mode contract needs a contract to check against (replayctl run --contract FILE)", ErrConfig)
	}
	v.def.compared = withOpaque(v.def.ignore)
	for i, c := range v.specs {
		r, err := v.compileRule(i, c)
		if err != nil {
			return nil, err
		}
		r.compared = withOpaque(r.ignore)
		v.rules = append(v.rules, r)
	}
	return v, nil
}

// opaquePatterns are the opaque paths, parsed once.
var opaquePatterns = func() []pattern {
	ps := make([]pattern, len(opaque))
	for i, s := range opaque {
		p, err := parsePattern(s)
		if err != nil {
			panic("validator: opaque path " + s + ": " + err.Error())
		}
		ps[i] = p
	}
	return ps
}()

// withOpaque is ignore and the opaque paths.
func withOpaque(ignore []pattern) []pattern {
	return append(slices.Clone(ignore), opaquePatterns...)
}

// Compare compares two whole JSON-RPC messages in exact mode, ignoring
// their top-level "id" and "jsonrpc" members and the configured paths,
// with the configured normalisers and tolerance; rules and the mode are
// Check's. It returns nil when they are equal, else the differences in
// path order (see the package documentation for the order and the cap).
// The error, wrapping ErrNotJSON, is only for a side that is not JSON.
func (v *Validator) Compare(expected, actual []byte) ([]Difference, error) {
	if v.disabled || sameBody(expected, actual) || sameMembers(expected, actual) {
		return nil, nil
	}
	if err := valid(expected, actual); err != nil {
		return nil, err
	}
	w := walker{ignore: v.def.compared, norm: v.norm, tol: v.tol}
	w.root(bytes.TrimSpace(expected), bytes.TrimSpace(actual))
	return w.result(), nil
}

func valid(expected, actual []byte) error {
	if !json.Valid(expected) {
		return fmt.Errorf("%w: the expected message (%.60q)", ErrNotJSON, expected)
	}
	if !json.Valid(actual) {
		return fmt.Errorf("%w: the actual message (%.60q)", ErrNotJSON, actual)
	}
	return nil
}

// Retries reports whether any rule asks to retry on failure, so that a
// caller can skip looking for retries when none can apply.
func (v *Validator) Retries() bool {
	for _, r := range v.rules {
		if r.onFailure == OnFailureRetry {
			return true
		}
	}
	return v.def.onFailure == OnFailureRetry
}
