package validator

import "fmt"

// Mode says how much of an answer is compared; see the package
// documentation.
type Mode string

// The validation modes.
const (
	Exact      Mode = "exact"      // every value that is not ignored
	Structural Mode = "structural" // same shape and JSON types; values may differ
	Partial    Mode = "partial"    // only the required fields
	Schema     Mode = "schema"     // the live answer has the shape MCP requires
	// Contract: the live answer has the shape MCP requires and the one a
	// contract drawn from recordings says (WithContract).
	Contract Mode = "contract"
)

// modes is every Mode, in the order errors and help list them.
var modes = [...]Mode{Exact, Structural, Partial, Schema, Contract}

// Modes returns every validation mode, in a fixed order: the one list
// the config file's checks, the CLI's --validation and its completion
// read.
func Modes() []Mode {
	out := modes
	return out[:]
}

// What a rule's on_failure says to do with a failed check.
const (
	OnFailureIgnore = "ignore" // not counted
	OnFailureWarn   = "warn"   // counted as a warning, the run passes
	OnFailureError  = "error"  // the run fails (the default)
	OnFailureRetry  = "retry"  // send again, up to MaxRetries times
	OnFailureSkip   = "skip"   // not judged at all
)

// DefaultRetries is a retry rule's MaxRetries when it gives none.
const DefaultRetries = 3

// ParseMode reads a mode name; "" is Exact.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return Exact, nil
	}
	for _, m := range modes {
		if Mode(s) == m {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w: unknown mode %q; want exact, structural, partial, schema or contract", ErrConfig, s)
}

func parseOnFailure(s string) (string, error) {
	switch s {
	case "":
		return OnFailureError, nil
	case OnFailureIgnore, OnFailureWarn, OnFailureError, OnFailureRetry, OnFailureSkip:
		return s, nil
	}
	return "", fmt.Errorf("%w: unknown on_failure %q; want ignore, warn, error, retry or skip", ErrConfig, s)
}
