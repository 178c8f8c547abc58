package validator

import (
	"bytes"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// The fast path. Compare first asks sameBody, which finds the part of each
// object between its leading and trailing "id"/"jsonrpc" members (where
// serialisers put them) and compares those bytes with one memcmp. When
// that fails, sameMembers scans all top-level members, for envelopes in
// the middle. Neither allocates; both trust the grammar of what they
// compare, and identical bytes are equal.

// sameBody reports whether both documents are objects with byte-identical
// bodies (see body).
func sameBody(expected, actual []byte) bool {
	es, ee, ok := body(expected)
	if !ok {
		return false
	}
	as, ae, ok := body(actual)
	return ok && bytes.Equal(expected[es:ee], actual[as:ae])
}

// body returns the span of an object's members without its leading and
// trailing envelope members: from the first other member's name to the
// end of the last other member's value (empty when there is none).
// Trailing envelope members are only stripped when their values are
// scalars, read backwards.
func body(doc []byte) (start, end int, ok bool) {
	i := jsonscan.SkipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return 0, 0, false
	}
	i = jsonscan.SkipSpace(doc, i+1)
	for i < len(doc) && doc[i] == '"' {
		key, after, plain := keyAt(doc, i)
		if !plain || !isEnvelope(key) {
			break
		}
		j := jsonscan.SkipSpace(doc, after)
		if j >= len(doc) || doc[j] != ':' {
			return 0, 0, false
		}
		j, err := jsonscan.SkipValue(doc, jsonscan.SkipSpace(doc, j+1))
		if err != nil {
			return 0, 0, false
		}
		j = jsonscan.SkipSpace(doc, j)
		if j < len(doc) && doc[j] == ',' {
			i = jsonscan.SkipSpace(doc, j+1)
			continue
		}
		i = j
		break
	}
	end = skipSpaceBack(doc, len(doc))
	if end == 0 || doc[end-1] != '}' {
		return 0, 0, false
	}
	end = skipSpaceBack(doc, end-1)
	for {
		c, ok := trailingEnvelope(doc, end)
		if !ok {
			break
		}
		end = skipSpaceBack(doc, c)
	}
	return i, max(end, i), true
}

// keyAt reads the member name whose opening quote is doc[i]; plain is
// false when it holds an escape or is not closed.
func keyAt(doc []byte, i int) (key []byte, after int, plain bool) {
	for j := i + 1; j < len(doc); j++ { // names are short: a loop beats IndexByte
		switch doc[j] {
		case '"':
			return doc[i+1 : j], j + 1, true
		case '\\':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// trailingEnvelope looks at the member ending at doc[end-1]: when it is
// an envelope member with a scalar value preceded by a comma, it returns
// the comma's offset.
func trailingEnvelope(doc []byte, end int) (comma int, ok bool) {
	v, ok := scalarStartBack(doc, end)
	if !ok {
		return 0, false
	}
	j := skipSpaceBack(doc, v)
	if j == 0 || doc[j-1] != ':' {
		return 0, false
	}
	j = skipSpaceBack(doc, j-1)
	if j == 0 || doc[j-1] != '"' {
		return 0, false
	}
	q := bytes.LastIndexByte(doc[:j-1], '"')
	if q < 0 {
		return 0, false
	}
	key := doc[q+1 : j-1]
	if bytes.IndexByte(key, '\\') >= 0 || !isEnvelope(key) {
		return 0, false
	}
	j = skipSpaceBack(doc, q)
	if j == 0 || doc[j-1] != ',' {
		return 0, false
	}
	return j - 1, true
}

// scalarStartBack returns where the number, literal or escape-free string
// ending at doc[end-1] starts.
func scalarStartBack(doc []byte, end int) (int, bool) {
	if end == 0 {
		return 0, false
	}
	switch c := doc[end-1]; {
	case c == '"':
		q := bytes.LastIndexByte(doc[:end-1], '"')
		if q < 0 || bytes.IndexByte(doc[q:end], '\\') >= 0 {
			return 0, false
		}
		return q, true
	case c == 'l' || c == 'e':
		for _, lit := range [...]string{"null", "true", "false"} {
			if bytes.HasSuffix(doc[:end], []byte(lit)) {
				return end - len(lit), true
			}
		}
		return 0, false
	case c >= '0' && c <= '9':
		i := end
		for i > 0 && isNumberByte(doc[i-1]) {
			i--
		}
		return i, true
	}
	return 0, false
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

func skipSpaceBack(doc []byte, i int) int {
	for i > 0 {
		switch doc[i-1] {
		case ' ', '\t', '\n', '\r':
			i--
		default:
			return i
		}
	}
	return i
}

// fastMembers bounds the top-level members the fast path looks at; a
// JSON-RPC message has at most five.
const fastMembers = 8

// sameMembers reports whether both documents are objects whose
// top-level members other than "id" and "jsonrpc" have the same names and
// byte-identical values, in the same order. It does not allocate.
func sameMembers(expected, actual []byte) bool {
	var want [fastMembers]jsonscan.Member
	n, ok := 0, true
	err := jsonscan.Members(expected, func(m jsonscan.Member) bool {
		if m.KeyEscaped || n == len(want) {
			ok = false
			return false
		}
		if !isEnvelope(m.Key) {
			want[n] = m
			n++
		}
		return true
	})
	if err != nil || !ok {
		return false
	}
	i := 0
	err = jsonscan.Members(actual, func(m jsonscan.Member) bool {
		if m.KeyEscaped {
			ok = false
			return false
		}
		if isEnvelope(m.Key) {
			return true
		}
		if i == n || !bytes.Equal(m.Key, want[i].Key) ||
			!bytes.Equal(actual[m.Start:m.End], expected[want[i].Start:want[i].End]) {
			ok = false
			return false
		}
		i++
		return true
	})
	return err == nil && ok && i == n
}

func isEnvelope(key []byte) bool {
	return string(key) == "id" || string(key) == "jsonrpc"
}
