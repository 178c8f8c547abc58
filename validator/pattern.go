package validator

import (
	"errors"
	"fmt"

	"github.com/replayctl/replayctl/internal/jsonpath"
)

// ErrPattern is wrapped by the error New returns for an ignore path or a
// required field that does not parse.
var ErrPattern = errors.New("validator: bad path")

// pattern is a parsed ignore path or required field, in the one path
// language of internal/jsonpath.
type pattern = jsonpath.Pattern

// PathError is a path of the validator's options that does not parse:
// Key names where it was given ("required_fields[1]", "ignore_fields[0]";
// "" for WithIgnore's), Err is the *jsonpath.SyntaxError (the path, the
// column, what is wrong and how to write it). It wraps ErrPattern.
type PathError struct {
	Key string
	Err error
}

func (e *PathError) Error() string {
	if e.Key == "" {
		return "bad path " + e.Err.Error()
	}
	return e.Key + ": bad path " + e.Err.Error()
}

func (e *PathError) Unwrap() []error { return []error{ErrPattern, e.Err} }

// parsePattern parses an ignore path or a required field; see the
// package documentation. The error is a *PathError with no key.
func parsePattern(src string) (pattern, error) { return parseKeyed("", src) }

// parseKeyed is parsePattern of a path given as key.
func parseKeyed(key, src string) (pattern, error) {
	p, err := jsonpath.Parse(src)
	if err != nil {
		return pattern{}, &PathError{Key: key, Err: err}
	}
	return p, nil
}

// indexed is key[i], as a config file names the i-th item of a list.
func indexed(key string, i int) string { return fmt.Sprintf("%s[%d]", key, i) }
