package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// ErrSyntax is wrapped by every error this package returns.
var ErrSyntax = errors.New("jsonscan: syntax error")

// Member is one top-level member of an object: its key (the raw bytes
// between the quotes, escapes not decoded) and its value, as offsets into
// the scanned document so that callers can splice the value out.
type Member struct {
	Key        []byte
	KeyEscaped bool // Key contains a backslash escape
	Start, End int  // the value is doc[Start:End]
}

// Members calls fn for each top-level member of the object in doc, in order,
// and stops early when fn returns false. It returns an error wrapping
// ErrSyntax when doc is not an object or its structure is broken; it does
// not check string escapes or number grammar (use json.Valid for that).
func Members(doc []byte, fn func(m Member) bool) error {
	return MembersSkip(doc, nil, fn)
}

// MembersSkip is Members where skip, when not nil, may find the end of a
// value itself (and do with it what it came for: parse it, say): it is
// called with each member's raw key and the offset its value starts at
// (len(doc) when the document ends there), and returns the offset just past the value and true, or false to leave
// the value to SkipValue. It is how a caller reads a value in the same
// pass that finds the members.
func MembersSkip(doc []byte, skip func(key []byte, start int) (int, bool), fn func(m Member) bool) error {
	i := SkipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrSyntax)
	}
	i = SkipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return trailing(doc, i+1)
	}
	for {
		if i >= len(doc) || doc[i] != '"' {
			return fmt.Errorf("%w: expected a member name at offset %d", ErrSyntax, i)
		}
		kend, esc, err := stringEnd(doc, i)
		if err != nil {
			return err
		}
		key := doc[i+1 : kend-1]
		i = SkipSpace(doc, kend)
		if i >= len(doc) || doc[i] != ':' {
			return fmt.Errorf("%w: expected ':' at offset %d", ErrSyntax, i)
		}
		i = SkipSpace(doc, i+1)
		vend, skipped := 0, false
		if skip != nil {
			vend, skipped = skip(key, i)
		}
		if !skipped {
			if vend, err = SkipValue(doc, i); err != nil {
				return err
			}
		}
		if !fn(Member{Key: key, KeyEscaped: esc, Start: i, End: vend}) {
			return nil
		}
		i = SkipSpace(doc, vend)
		if i >= len(doc) {
			return fmt.Errorf("%w: object not closed", ErrSyntax)
		}
		switch doc[i] {
		case ',':
			i = SkipSpace(doc, i+1)
		case '}':
			return trailing(doc, i+1)
		default:
			return fmt.Errorf("%w: expected ',' or '}' at offset %d", ErrSyntax, i)
		}
	}
}

func trailing(doc []byte, i int) error {
	if i = SkipSpace(doc, i); i != len(doc) {
		return fmt.Errorf("%w: data after the object at offset %d", ErrSyntax, i)
	}
	return nil
}

// SkipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func SkipSpace(doc []byte, i int) int {
	for i < len(doc) {
		// One comparison for the common byte, past ' ' (every white
		// space byte is at most ' ').
		if c := doc[i]; c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return i
		}
		i++
	}
	return i
}

// SkipValue returns the offset just past the JSON value starting at doc[i].
func SkipValue(doc []byte, i int) (int, error) {
	if i >= len(doc) {
		return i, fmt.Errorf("%w: unexpected end of input", ErrSyntax)
	}
	switch c := doc[i]; {
	case c == '"':
		end, _, err := stringEnd(doc, i)
		return end, err
	case c == '{' || c == '[':
		return compositeEnd(doc, i)
	case c == 't':
		return literal(doc, i, "true")
	case c == 'f':
		return literal(doc, i, "false")
	case c == 'n':
		return literal(doc, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(doc) && isNumberByte(doc[j]) {
			j++
		}
		return j, nil
	default:
		return i, fmt.Errorf("%w: unexpected %q at offset %d", ErrSyntax, c, i)
	}
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

func literal(doc []byte, i int, lit string) (int, error) {
	end, ok := validLiteral(doc, i, lit)
	if !ok {
		return i, fmt.Errorf("%w: bad literal at offset %d", ErrSyntax, i)
	}
	return end, nil
}

// stringEnd returns the offset just past the string starting at doc[i]
// (which is a quote), and whether it holds an escape. Its first 32 bytes
// are looked at eight at a time (most strings of a JSON-RPC envelope are
// shorter); a longer string's end is found with bytes.IndexByte
// (vectorised).
func stringEnd(doc []byte, i int) (int, bool, error) {
	if j := i + 1; j+8 <= len(doc) { // the first word here, without a call
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(doc[j:])); m != 0 {
			if j += bits.TrailingZeros64(m) >> 3; doc[j] == '"' {
				return j + 1, false, nil
			}
			return stringEndSlow(doc, i, j)
		}
	}
	end := min(len(doc), i+33)
	j := firstQuoteOrBackslash(doc, i+1, end)
	if j < end {
		if doc[j] == '"' {
			return j + 1, false, nil
		}
		return stringEndSlow(doc, i, j)
	}
	if q := bytes.IndexByte(doc[j:], '"'); q >= 0 {
		if bytes.IndexByte(doc[j:j+q], '\\') < 0 {
			return j + q + 1, false, nil
		}
	}
	return stringEndSlow(doc, i, j)
}

// stringEndSlow finishes a string that holds (or may hold) an escape,
// from offset j on.
func stringEndSlow(doc []byte, i, j int) (int, bool, error) {
	esc := false
	for ; j < len(doc); j++ {
		switch doc[j] {
		case '"':
			return j + 1, esc, nil
		case '\\':
			esc = true
			j++
		}
	}
	return i, esc, fmt.Errorf("%w: string at offset %d not closed", ErrSyntax, i)
}

// compositeEnd skips an object or array, counting brackets outside strings.
func compositeEnd(doc []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(doc); j++ {
		switch doc[j] {
		case '"':
			end, _, err := stringEnd(doc, j)
			if err != nil {
				return j, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return i, fmt.Errorf("%w: value at offset %d not closed", ErrSyntax, i)
}
