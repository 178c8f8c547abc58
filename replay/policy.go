package replay

import (
	"fmt"

	"github.com/replayctl/replayctl/validator"
)

// Ordering says what a client message waits for before it is sent; give
// it with Order.
type Ordering string

// The orderings.
const (
	Causal     Ordering = "causal"     // the answers recorded before it (the default)
	Sequential Ordering = "sequential" // every answer
	Unordered  Ordering = "none"       // nothing
	Shuffled   Ordering = "random"     // causal, each run of client messages in a seeded random order (Seed)
)

// ParseOrdering reads an ordering as --order and the config write it:
// causal, sequential, none or random.
func ParseOrdering(s string) (Ordering, error) {
	switch o := Ordering(s); o {
	case Causal, Sequential, Unordered, Shuffled:
		return o, nil
	}
	return "", fmt.Errorf("order %q: want causal, sequential, none or random", s)
}

// ErrorPolicy says what happens at a failed or unanswered message; give
// it with OnError.
type ErrorPolicy string

// The error policies.
const (
	Continue ErrorPolicy = "continue" // report it and go on (the default)
	Stop     ErrorPolicy = "stop"     // end the replay there
	Retry    ErrorPolicy = "retry"    // retry what the target asked to have again (MaxRetries), then go on
	Pause    ErrorPolicy = "pause"    // pause a controlled replay there (replayctl debug)
)

// ParseErrorPolicy reads a policy as --on-error and the config write it:
// continue, stop, retry or pause.
func ParseErrorPolicy(s string) (ErrorPolicy, error) {
	switch p := ErrorPolicy(s); p {
	case Continue, Stop, Retry, Pause:
		return p, nil
	}
	return "", fmt.Errorf("on error %q: want continue, stop, retry or pause", s)
}

// ParseValidation reads a validation mode as --validation and the config
// write it (exact, structural, partial, schema): validator.ParseMode,
// without contract, which is Contract's.
func ParseValidation(s string) (validator.Mode, error) {
	m, err := validator.ParseMode(s)
	if err == nil && m == validator.Contract {
		err = fmt.Errorf("validation %q: give a contract with Contract", s)
	}
	return m, err
}
