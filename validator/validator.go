package validator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// DiffKind says how a value differs.
type DiffKind string

// The kinds of difference Compare reports.
const (
	DiffChanged DiffKind = "changed" // same JSON type, different value
	DiffAdded   DiffKind = "added"   // in actual only
	DiffRemoved DiffKind = "removed" // in expected only
	DiffType    DiffKind = "type"    // different JSON types (say string vs number)
	// DiffTruncated is the last entry of a list cut at MaxDifferences: its
	// Path is empty and its Actual is how many differences were left out.
	DiffTruncated DiffKind = "truncated"
)

// MaxDifferences is how many differences Compare lists for one message.
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

// Validator compares expected and actual messages. It is immutable after
// New and safe for concurrent use.
type Validator struct {
	ignore []pattern
}

// Option configures a Validator.
type Option func(*Validator) error

// WithIgnore adds paths that are not compared, as patterns (see the
// package documentation): "result.content[*].annotations", "**.timestamp",
// "result.serverInfo.version", "error.data". New fails on a malformed
// pattern and names it.
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

// New returns a Validator configured by opts.
func New(opts ...Option) (*Validator, error) {
	v := &Validator{}
	for _, o := range opts {
		if err := o(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Compare compares two whole JSON-RPC messages, ignoring their top-level
// "id" and "jsonrpc" members and the configured paths. It returns nil when
// they are equal, else the differences in path order (see the package
// documentation for the order and the cap). The error, wrapping
// ErrNotJSON, is only for a side that is not JSON.
func (v *Validator) Compare(expected, actual []byte) ([]Difference, error) {
	if sameBody(expected, actual) || sameMembers(expected, actual) {
		return nil, nil
	}
	if !json.Valid(expected) {
		return nil, fmt.Errorf("%w: the expected message (%.60q)", ErrNotJSON, expected)
	}
	if !json.Valid(actual) {
		return nil, fmt.Errorf("%w: the actual message (%.60q)", ErrNotJSON, actual)
	}
	w := walker{ignore: v.ignore}
	w.root(bytes.TrimSpace(expected), bytes.TrimSpace(actual))
	return w.result(), nil
}
