package jsonscan

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Valid reports whether b is one well-formed JSON value, exactly as
// encoding/json.Valid does (FuzzValid checks that they agree), at several
// times its speed: it is the hot path of the tape reader, which validates
// every message it reads. Like encoding/json it does not check UTF-8 in
// strings and refuses nesting deeper than MaxDepth.
func Valid(b []byte) bool {
	i, ok := validValue(b, SkipSpace(b, 0), 0)
	return ok && SkipSpace(b, i) == len(b)
}

// MaxDepth is the deepest nesting of objects and arrays Valid accepts,
// encoding/json's limit.
const MaxDepth = 10000

func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		if depth++; depth > MaxDepth {
			return i, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = validString(b, i); !ok {
				return i, false
			}
			if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = validValue(b, SkipSpace(b, i+1), depth); !ok {
				return i, false
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i = SkipSpace(b, i+1)
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '[':
		if depth++; depth > MaxDepth {
			return i, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(b, i, depth); !ok {
				return i, false
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i = SkipSpace(b, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return validLiteral(b, i, "true")
	case c == 'f':
		return validLiteral(b, i, "false")
	case c == 'n':
		return validLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return validNumber(b, i)
	}
	return i, false
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// validString checks the string starting at b[i] (a quote). The bytes
// between escapes are passed eight at a time (firstSpecial).
func validString(b []byte, i int) (int, bool) {
	for i++; ; i++ {
		if i+8 <= len(b) { // the first word here, without a call
			if m := specialBytes(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
			} else {
				i = firstSpecial(b, i+8)
			}
		} else {
			i = firstSpecial(b, i)
		}
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		}
		// a backslash escape
		if i++; i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
				return i, false
			}
			i += 4
		default:
			return i, false
		}
	}
}

// validKey is validString for a member's name, which also reports
// whether the name holds an escape: the first byte past the quote that
// the scan stops at is then a backslash (a name without one, most
// names, is scanned once, with no search for a backslash after it).
func validKey(b []byte, i int) (end int, esc, ok bool) {
	j := i + 1
	if j+8 <= len(b) {
		if m := specialBytes(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			j += bits.TrailingZeros64(m) >> 3
		} else {
			j = firstSpecial(b, j+8)
		}
	} else {
		j = firstSpecial(b, j)
	}
	if j < len(b) && b[j] == '"' {
		return j + 1, false, true
	}
	// A backslash (the name is valid only then), a control character or
	// the end.
	end, ok = validString(b, i)
	return end, true, ok
}

// plainByte marks the bytes validString must look at: quote, backslash and
// control characters (the name says what the others are).
var plainByte = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		if i++; i >= len(b) {
			return i, false
		}
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	return i, true
}

// MembersValid is Members for a document that must also be well formed:
// it calls fn for each top-level member as Members does, and checks the
// whole document as Valid does, in one pass. It returns an error wrapping
// ErrSyntax exactly when Valid(doc) is false or doc is not an object
// (FuzzMembersValid checks both). Unlike Members it does not stop when fn
// returns false: fn is then not called again, but the rest is still
// checked.
func MembersValid(doc []byte, fn func(m Member) bool) error {
	end, err := MembersValidAt(doc, SkipSpace(doc, 0), fn)
	if err != nil {
		return err
	}
	return trailing(doc, end)
}

// MembersValidAt is MembersValid for the object that starts at doc[i]
// (its '{'), with anything after it: it returns the offset just past the
// object.
func MembersValidAt(doc []byte, i int, fn func(m Member) bool) (int, error) {
	if i >= len(doc) || doc[i] != '{' {
		return i, fmt.Errorf("%w: not a JSON object", ErrSyntax)
	}
	i = SkipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return i + 1, nil
	}
	call := true
	for {
		if i >= len(doc) || doc[i] != '"' {
			return i, fmt.Errorf("%w: expected a member name at offset %d", ErrSyntax, i)
		}
		kend, esc, ok := validKey(doc, i)
		if !ok {
			return i, fmt.Errorf("%w: bad member name at offset %d", ErrSyntax, i)
		}
		key := doc[i+1 : kend-1]
		if i = SkipSpace(doc, kend); i >= len(doc) || doc[i] != ':' {
			return i, fmt.Errorf("%w: expected ':' at offset %d", ErrSyntax, i)
		}
		start := SkipSpace(doc, i+1)
		vend, ok := validValue(doc, start, 1)
		if !ok {
			return i, fmt.Errorf("%w: bad value at offset %d", ErrSyntax, start)
		}
		if call {
			call = fn(Member{Key: key, KeyEscaped: esc, Start: start, End: vend})
		}
		if i = SkipSpace(doc, vend); i >= len(doc) {
			return i, fmt.Errorf("%w: object not closed", ErrSyntax)
		}
		switch doc[i] {
		case ',':
			i = SkipSpace(doc, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, fmt.Errorf("%w: expected ',' or '}' at offset %d", ErrSyntax, i)
		}
	}
}

// ValueEnd checks the value that starts at doc[i], a member's value of a
// top-level object (at depth 1, as MembersValidAt checks it), and returns
// the offset just past it; ok is false when it is not well-formed JSON.
// It is the value half of MembersValidAt for a caller that walks the
// object's members itself.
func ValueEnd(doc []byte, i int) (end int, ok bool) {
	return validValue(doc, i, 1)
}

// KeyEnd checks the member name that starts at doc[i] (a quote) and
// returns the offset just past it, and whether the name holds a
// backslash escape; ok is false when it is not a valid JSON string. It
// is the name half of MembersValidAt.
func KeyEnd(doc []byte, i int) (end int, esc, ok bool) {
	return validKey(doc, i)
}
