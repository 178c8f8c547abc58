package transformer

import (
	"encoding/json"
	"fmt"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// GetPath returns the bytes of the value at p in the JSON document raw (a
// sub-slice of raw, not a copy), and whether it is there. A member of
// something that is not an object, or an index past the end, is simply
// not there; the error is for a document whose structure is broken on the
// way to p (it is read only as far as p needs). With duplicate
// names the first member counts, as it does for SetPath and RemovePath.
func GetPath(raw []byte, p Path) ([]byte, bool, error) {
	s, e, ok, err := locate(raw, p)
	if err != nil || !ok {
		return nil, false, err
	}
	return raw[s:e], true, nil
}

// SetPath returns a copy of raw with the value at p replaced by value (a
// JSON value). A missing member is added at the end of its object —
// `,"name":value` before the closing brace — with any missing objects on
// the way; an array index must be in range. Every byte outside the edited
// value is kept. Errors wrap ErrPath and name the path.
func SetPath(raw []byte, p Path, value []byte) ([]byte, error) {
	if !json.Valid(value) {
		return nil, fmt.Errorf("%w %s: the new value is not JSON", ErrPath, p)
	}
	s, e, err := rootSpan(raw, p)
	if err != nil {
		return nil, err
	}
	for i := range p.steps {
		st := &p.steps[i]
		ms, me, found, err := child(raw, s, e, st, p, i)
		if err != nil {
			return nil, err
		}
		if found {
			s, e = ms, me
			continue
		}
		if st.IsIndex {
			return nil, fmt.Errorf("%w %s: index %d is out of range at %s (%d elements)", ErrPath, p, st.Index, p.prefix(i), countElements(raw[s:e]))
		}
		return insertMember(raw, s, e, p, i, value)
	}
	return splice(raw, s, e, value), nil
}

// RemovePath returns a copy of raw without the member or element at p,
// and one comma next to it; raw itself when there is nothing at p. Every
// other byte is kept. The whole document ("$") cannot be removed.
func RemovePath(raw []byte, p Path) ([]byte, error) {
	if p.IsRoot() {
		return nil, fmt.Errorf("%w $: the whole message cannot be removed; use drop", ErrPath)
	}
	parent := Path{steps: p.steps[:len(p.steps)-1]}
	s, e, ok, err := locate(raw, parent)
	if err != nil || !ok {
		return raw, err
	}
	last := &p.steps[len(p.steps)-1]
	// Walk the parent's entries; prev is the end of the entry before the
	// current one.
	var from, to int
	found := false
	prev, idx := -1, 0
	visit := func(en entry) bool {
		if found {
			// the entry after a removed first one: delete up to its start
			to = en.start
			return false
		}
		if !matches(en, last, idx) {
			prev, idx = en.end, idx+1
			return true
		}
		found = true
		if prev >= 0 { // not the first: take the comma before it
			from, to = prev, en.end
			return false
		}
		from, to = en.start, en.end // the first: take the comma after it, if any
		return true
	}
	switch {
	case !last.IsIndex && raw[s] == '{':
		err = objectEntries(raw, s, e, visit)
	case last.IsIndex && raw[s] == '[':
		err = arrayEntries(raw, s, e, visit)
	default:
		return raw, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrPath, p, err)
	}
	if !found {
		return raw, nil
	}
	return splice(raw, from, to, nil), nil
}

// locate finds the span of the value at p; ok is false when it is not
// there.
func locate(raw []byte, p Path) (int, int, bool, error) {
	s, e, err := rootSpan(raw, p)
	if err != nil {
		return 0, 0, false, err
	}
	for i := range p.steps {
		st := &p.steps[i]
		if (!st.IsIndex && raw[s] != '{') || (st.IsIndex && raw[s] != '[') {
			return 0, 0, false, nil
		}
		ms, me, found, err := child(raw, s, e, st, p, i)
		if err != nil || !found {
			return 0, 0, false, err
		}
		s, e = ms, me
	}
	return s, e, true, nil
}

// rootSpan returns the span of the document without the white space
// around it. An object or array is checked as it is walked (its end is
// taken on trust until then, saving a pass over the whole message); any
// other value is checked here.
func rootSpan(raw []byte, p Path) (int, int, error) {
	s := jsonscan.SkipSpace(raw, 0)
	e := len(raw)
	for e > s && isSpace(raw[e-1]) {
		e--
	}
	if s == e {
		return 0, 0, fmt.Errorf("%w %s: the message is empty", ErrPath, p)
	}
	if c, last := raw[s], raw[e-1]; (c == '{' && last == '}') || (c == '[' && last == ']') {
		return s, e, nil
	}
	if end, err := jsonscan.SkipValue(raw, s); err != nil || end != e {
		return 0, 0, fmt.Errorf("%w %s: the message is not one JSON value", ErrPath, p)
	}
	return s, e, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// child finds step st (p.steps[i]) in the value raw[s:e]: the member's
// value or the element. It is an error for the value to be of the wrong
// type; not finding it is not.
func child(raw []byte, s, e int, st *step, p Path, i int) (int, int, bool, error) {
	want := byte('{')
	if st.IsIndex {
		want = '['
	}
	if raw[s] != want {
		what := "an object"
		if st.IsIndex {
			what = "an array"
		}
		return 0, 0, false, fmt.Errorf("%w %s: %s is %s, not %s", ErrPath, p, p.prefix(i), typeName(raw[s]), what)
	}
	var vs, ve int
	found, idx := false, 0
	visit := func(en entry) bool {
		if matches(en, st, idx) {
			found = true
			vs, ve = en.value, en.end
			return false
		}
		idx++
		return true
	}
	var err error
	if st.IsIndex {
		err = arrayEntries(raw, s, e, visit)
	} else {
		err = objectEntries(raw, s, e, visit)
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("%w %s: %v", ErrPath, p, err)
	}
	return vs, ve, found, nil
}

// matches reports whether en, the entry at position idx, is the one st
// names.
func matches(en entry, st *step, idx int) bool {
	if st.IsIndex {
		return idx == st.Index
	}
	if !en.escaped {
		return string(en.key) == st.Key
	}
	q := make([]byte, 0, len(en.key)+2)
	q = append(append(append(q, '"'), en.key...), '"')
	var name string
	return json.Unmarshal(q, &name) == nil && name == st.Key
}

// entry is one member of an object, from the opening quote of its name
// (start) and its value (value) to the end of its value (end); or one
// element of an array (start == value).
type entry struct {
	start, value, end int
	key               []byte // the raw name between its quotes
	escaped           bool   // key holds a backslash escape
}

// objectEntries calls fn with each member of the object raw[s:e], until
// fn returns false.
func objectEntries(raw []byte, s, e int, fn func(en entry) bool) error {
	obj := raw[s:e]
	prevEnd := -1
	return jsonscan.Members(obj, func(m jsonscan.Member) bool {
		var ks int
		if prevEnd < 0 {
			ks = jsonscan.SkipSpace(obj, 1)
		} else { // past the comma after the previous value
			ks = jsonscan.SkipSpace(obj, jsonscan.SkipSpace(obj, prevEnd)+1)
		}
		prevEnd = m.End
		return fn(entry{start: s + ks, value: s + m.Start, end: s + m.End, key: m.Key, escaped: m.KeyEscaped})
	})
}

// arrayEntries calls fn with the span of each element of the array
// raw[s:e] until fn returns false.
func arrayEntries(raw []byte, s, e int, fn func(en entry) bool) error {
	i := jsonscan.SkipSpace(raw, s+1)
	if i < e && raw[i] == ']' {
		return nil
	}
	for {
		ve, err := jsonscan.SkipValue(raw[:e], i)
		if err != nil {
			return err
		}
		if !fn(entry{start: i, value: i, end: ve}) {
			return nil
		}
		i = jsonscan.SkipSpace(raw, ve)
		if i >= e {
			return fmt.Errorf("%w: array not closed", jsonscan.ErrSyntax)
		}
		switch raw[i] {
		case ',':
			i = jsonscan.SkipSpace(raw, i+1)
		case ']':
			return nil
		default:
			return fmt.Errorf("%w: expected ',' or ']' at offset %d", jsonscan.ErrSyntax, i)
		}
	}
}

// insertMember adds p.steps[i:] under the object raw[s:e]: the member
// p.steps[i] holding objects down to value. Later steps must be names.
func insertMember(raw []byte, s, e int, p Path, i int, value []byte) ([]byte, error) {
	var b []byte
	for _, st := range p.steps[i:] {
		if st.IsIndex {
			return nil, fmt.Errorf("%w %s: %s is missing, so index %d cannot be set; only objects are created", ErrPath, p, p.prefix(i+1), st.Index)
		}
	}
	last := -1
	if err := objectEntries(raw, s, e, func(en entry) bool { last = en.end; return true }); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrPath, p, err)
	}
	at := s + 1
	if last >= 0 {
		at = last
		b = append(b, ',')
	}
	for j, st := range p.steps[i:] {
		if j > 0 {
			b = append(b, '{')
		}
		b = jsonscan.AppendString(b, st.Key)
		b = append(b, ':')
	}
	b = append(b, value...)
	for range p.steps[i+1:] {
		b = append(b, '}')
	}
	return splice(raw, at, at, b), nil
}

// splice returns a copy of raw with raw[s:e] replaced by with.
func splice(raw []byte, s, e int, with []byte) []byte {
	out := make([]byte, 0, len(raw)-(e-s)+len(with))
	out = append(out, raw[:s]...)
	out = append(out, with...)
	return append(out, raw[e:]...)
}

func countElements(arr []byte) int {
	n := 0
	_ = arrayEntries(arr, 0, len(arr), func(entry) bool { n++; return true })
	return n
}

// typeName names the JSON type of the value starting with c.
func typeName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a bool"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
