package validator

import (
	"errors"
	"fmt"

	"github.com/replayctl/replayctl/internal/jsonpath"
)

// ErrPattern is wrapped by the error New returns for a malformed ignore
// pattern.
var ErrPattern = errors.New("validator: malformed ignore pattern")

// pattern is a parsed ignore path or required field, in the one path
// language of internal/jsonpath.
type pattern = jsonpath.Pattern

// parsePattern parses an ignore pattern; see the package documentation.
// The error wraps ErrPattern and the *jsonpath.SyntaxError (the pattern,
// the column, what is wrong and how to write it).
func parsePattern(src string) (pattern, error) {
	p, err := jsonpath.Parse(src)
	if err != nil {
		return pattern{}, fmt.Errorf("%w %w", ErrPattern, err)
	}
	return p, nil
}
