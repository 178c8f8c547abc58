//go:build !unix

package transport

import "errors"

// pipeBytes says the system has no FIONREAD for a pipe here: the tests
// that wait on it skip.
func pipeBytes(int) (int, error) { return 0, errors.ErrUnsupported }
