package config

import (
	"fmt"
	"strings"
)

// Error is what Load and Parse return for a file that cannot be used: a
// YAML syntax error, an unknown key, a value of the wrong type, or a value
// outside what the key allows. Its text names the file, the line, the key
// and what to write instead:
//
//	replay.yaml line 12: unknown key "validaton" (did you mean "validation"?)
//	replay.yaml line 7: validation.tolerance.numeric: want a number, got "lots"
//
// The CLI maps it to exit status 2 (bad input).
type Error struct {
	Path string // the file as given to Load or Parse
	Line int    // 1-based; 0 when the error has no place in the file (unreadable file)
	Key  string // the key path ("validation.rules[0].mode"); for an unknown key, the mapping that holds it ("" at the top)
	Msg  string // what is wrong and what to write instead
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
