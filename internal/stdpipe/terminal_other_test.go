//go:build !unix

package stdpipe

import (
	"os"
	"testing"
)

// terminal is nil here: no pseudo-terminal to test with.
func terminal(*testing.T) (term, ptmx *os.File) { return nil, nil }
