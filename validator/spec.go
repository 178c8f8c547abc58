package validator

import "fmt"

// Rule is a validation rule as WithRules takes it: the messages it
// applies to, and how their answers are judged. New checks and compiles
// it; an error is a *RuleError.
type Rule struct {
	// Scope says which messages the rule applies to.
	Scope Scope
	// Mode is how the answer is compared. "" is Partial when
	// RequiredFields is set, else the Validator's mode (WithMode).
	Mode Mode
	// RequiredFields are the patterns Partial compares, and only there.
	RequiredFields []string
	// IgnoreFields are patterns not compared, added to the Validator's
	// (WithIgnore).
	IgnoreFields []string
	// OnFailure is what to do with a failed check: OnFailureIgnore,
	// OnFailureWarn, OnFailureError ("" too), OnFailureRetry or
	// OnFailureSkip.
	OnFailure string
	// MaxRetries is how many times OnFailureRetry sends again; 0 is
	// DefaultRetries.
	MaxRetries int
	// Line is where the rule was written (the config file's line), for
	// errors; 0 when it has no place.
	Line int
}

// Scope says which messages a Rule applies to. Its set fields are ANDed;
// Always alone matches every message, and a scope with nothing set is an
// error (it would match nothing).
type Scope struct {
	Always  bool
	Method  string
	Kind    string    // request, notification, response or error; see the package documentation
	Seq     *SeqRange // nil: any seq
	Session string
	// When is an expression over the request, compiled by WithWhen's
	// compiler (by default the language of debug breakpoints, package
	// match).
	When string
}

// SeqRange is the seqs From to To, both included.
type SeqRange struct {
	From, To int64
}

// RuleError is what New returns for a rule that cannot be used: it names
// the rule by its place and line ("validation rule 2 (line 14): …") and
// wraps what is wrong, which wraps ErrConfig or ErrPattern.
type RuleError struct {
	Index int   // 0-based place among the rules
	Line  int   // Rule.Line; 0: not said
	Err   error // what is wrong
}

func (e *RuleError) Error() string { return ruleName(e.Index, e.Line) + ": " + e.Err.Error() }

func (e *RuleError) Unwrap() error { return e.Err }

// ruleName names a rule in errors: its 1-based place and its line.
func ruleName(i, line int) string {
	if line > 0 {
		return fmt.Sprintf("validation rule %d (line %d)", i+1, line)
	}
	return fmt.Sprintf("validation rule %d", i+1)
}
