package validator

import "bytes"

// Verdict is what Check found and what the rule that applied says to do
// about it.
type Verdict struct {
	// Diffs are the differences; nil when the answer passes.
	Diffs []Difference
	// Transition is "success→error" when the recorded answer was a
	// result and the live one an error, "error→success" for the
	// reverse, "" otherwise.
	Transition string
	// OnFailure is what the rule says to do when Diffs is not empty:
	// OnFailureIgnore, Warn, Error (the default), Retry or Skip.
	OnFailure string
	// MaxRetries is how many times to send again, for OnFailureRetry.
	MaxRetries int
	// Mode is the mode the answer was checked in.
	Mode Mode
}

// Failed reports whether the verdict has differences.
func (v Verdict) Failed() bool { return len(v.Diffs) > 0 }

// CheckSame is Check of an actual answer the caller knows to be expected
// with at most its top-level id changed, byte for byte elsewhere (the
// replay's session knows it of an answer it parsed as the recorded one
// with another id). In exact and structural modes, and with validation
// off, that answer passes and is not compared again; in the other modes
// CheckSame is Check.
func (v *Validator) CheckSame(s Subject, expected, actual []byte) (Verdict, error) {
	r, err := v.pick(s, expected)
	if err != nil {
		return Verdict{}, err
	}
	if v.disabled || r.mode == Exact || r.mode == Structural {
		return Verdict{Mode: r.mode, OnFailure: r.onFailure, MaxRetries: r.maxRetries}, nil
	}
	return v.Check(s, expected, actual)
}

// Check judges the live answer actual against the recorded expected, in
// the mode of the first rule whose scope matches s (or the Validator's
// mode). In every mode, a recorded result answered now by an error, or
// the reverse, is one difference named by its transition; otherwise:
// Exact compares every value not ignored; Structural compares shapes and
// JSON types; Partial compares the rule's required fields; Schema checks
// actual alone against what MCP requires for s.Method (expected may then
// be nil). The top-level "id" and "jsonrpc" are never compared.
//
// The error wraps ErrNotJSON for a side that is not JSON, or names the
// rule whose when predicate failed. In exact and structural modes,
// answers identical outside the envelope are judged without allocating.
func (v *Validator) Check(s Subject, expected, actual []byte) (Verdict, error) {
	r, err := v.pick(s, expected)
	if err != nil {
		return Verdict{}, err
	}
	vd := Verdict{Mode: r.mode, OnFailure: r.onFailure, MaxRetries: r.maxRetries}
	if v.disabled {
		return vd, nil
	}
	if (r.mode == Exact || r.mode == Structural) && (sameBody(expected, actual) || sameMembers(expected, actual)) {
		return vd, nil
	}
	if (r.mode == Schema || r.mode == Contract) && len(bytes.TrimSpace(expected)) == 0 {
		expected = []byte("{}")
	}
	if err := valid(expected, actual); err != nil {
		return Verdict{}, err
	}
	e, a := bytes.TrimSpace(expected), bytes.TrimSpace(actual)
	ignore := r.compared
	if r.mode == Schema || r.mode == Contract {
		ignore = r.ignore
	}
	w := walker{ignore: ignore, structural: r.mode == Structural, norm: v.norm, tol: v.tol}
	ek, ev := answerKind(e)
	ak, av := answerKind(a)
	switch {
	case ek == 'r' && ak == 'e':
		vd.Transition = string(DiffSuccessToError)
		w.addAt("$", DiffSuccessToError, ev, av)
	case ek == 'e' && ak == 'r':
		vd.Transition = string(DiffErrorToSuccess)
		w.addAt("$", DiffErrorToSuccess, ev, av)
	}
	switch {
	case r.mode == Schema:
		w.schema(s.Method, a)
	case r.mode == Contract:
		w.schema(s.Method, a)
		if ak == 'r' {
			for _, d := range v.contract.CheckAnswer(s, a) {
				w.addAt(d.Path, d.Kind, d.Expected, d.Actual)
			}
		}
	case vd.Transition != "":
		// The rest of the two answers differ by nature.
	case r.mode == Partial:
		w.required(r.required, e, a)
	default:
		w.root(e, a)
	}
	vd.Diffs = w.result()
	return vd, nil
}
