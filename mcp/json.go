package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// The helpers below read a few members of small JSON objects without
// decoding the rest, on the same scanner the jsonrpc view uses. They
// trust the structure only as far as they read it: a document that is
// not an object, or is broken before the member, reads as "absent".

// member returns the raw value of the first top-level member named key
// of the object doc, or nil when doc is not an object or has no such
// member. Escaped member names are decoded before they are compared.
func member(doc []byte, key string) []byte {
	if !isObject(doc) {
		return nil // and no error for Members to build
	}
	var v []byte
	_ = jsonscan.Members(doc, func(m jsonscan.Member) bool {
		if keyIs(m, key) {
			v = doc[m.Start:m.End:m.End]
			return false
		}
		return true
	})
	return v
}

// isObject reports whether doc starts like a JSON object.
func isObject(doc []byte) bool {
	i := jsonscan.SkipSpace(doc, 0)
	return i < len(doc) && doc[i] == '{'
}

func keyIs(m jsonscan.Member, key string) bool {
	if !m.KeyEscaped {
		return string(m.Key) == key
	}
	s, ok := decodeString(quoted(m.Key))
	return ok && s == key
}

func quoted(b []byte) []byte {
	q := make([]byte, 0, len(b)+2)
	return append(append(append(q, '"'), b...), '"')
}

// path follows member names down from doc; nil when any is absent.
func path(doc []byte, keys ...string) []byte {
	for _, k := range keys {
		if doc = member(doc, k); doc == nil {
			return nil
		}
	}
	return doc
}

// isString reports whether v is the JSON string s, without allocating
// unless v holds an escape.
func isString(v []byte, s string) bool {
	if len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s {
		return true
	}
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') < 0 {
		return false
	}
	d, ok := decodeString(v)
	return ok && d == s
}

// decodeString decodes the JSON string v. Strings without escapes (nearly
// all) are cut out of v without going through encoding/json; invalid
// UTF-8 then goes the slow way too, so that it becomes U+FFFD as a
// decoder makes it.
func decodeString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}
