package transformer

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParsePath: any string either fails with ErrBadPath or gives a path
// whose String parses back to itself.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"$.params.arguments.city", "items[0]", `$["a.b"]['c'][2]`, "a..b", "[", "$", `$["\u00e9"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			if !errors.Is(err, ErrBadPath) {
				t.Fatalf("got error %v, want one wrapping ErrBadPath", err)
			}
			return
		}
		again, err := ParsePath(p.String())
		if err != nil || again.String() != p.String() {
			t.Fatalf("%q → %s → %v, %v", s, p, again, err)
		}
	})
}

var fuzzDocs = []string{
	odd,
	`{"a":{"b":[1,{"c":2}]},"d":"x"}`,
	`[ {"a" : 1}, [] ]`,
	`{"a\"b":1, "q":{}}`,
	`"s"`,
}

// FuzzSetPath: on valid JSON, SetPath gives valid JSON, GetPath then
// returns the value, and every byte outside the edited value (or the
// inserted member) is kept.
func FuzzSetPath(f *testing.F) {
	for _, d := range fuzzDocs {
		f.Add([]byte(d), "$.a.b[1].c", []byte(`"v"`))
		f.Add([]byte(d), "params.arguments.city", []byte(` {"x":[1]} `))
	}
	f.Fuzz(func(t *testing.T, raw []byte, path string, value []byte) {
		p, err := ParsePath(path)
		if err != nil || !json.Valid(raw) || !json.Valid(value) {
			return
		}
		s, e, found, _ := locate(raw, p)
		out, err := SetPath(raw, p, value)
		if err != nil {
			if !errors.Is(err, ErrPath) {
				t.Fatalf("got error %v, want one wrapping ErrPath", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("SetPath(%s, %s, %s) = %s: not JSON", raw, p, value, out)
		}
		got, ok, err := GetPath(out, p)
		if err != nil || !ok || !bytes.Equal(got, bytes.TrimSpace(value)) {
			t.Fatalf("GetPath after SetPath(%s, %s, %s): got %s, %v, %v", raw, p, value, got, ok, err)
		}
		if found {
			if !bytes.Equal(out[:s], raw[:s]) || !bytes.HasSuffix(out, raw[e:]) {
				t.Fatalf("SetPath(%s, %s, %s) = %s: bytes outside [%d:%d] changed", raw, p, value, out, s, e)
			}
		} else if commonPrefix(raw, out)+commonSuffix(raw, out) < len(raw) {
			t.Fatalf("SetPath(%s, %s, %s) = %s: not an insertion", raw, p, value, out)
		}
	})
}

// FuzzRemovePath: on valid JSON, RemovePath gives valid JSON that is raw
// with one run of bytes taken out.
func FuzzRemovePath(f *testing.F) {
	for _, d := range fuzzDocs {
		f.Add([]byte(d), "$.a.b[0]")
		f.Add([]byte(d), "params.arguments.city")
		f.Add([]byte(d), "[1]")
	}
	f.Fuzz(func(t *testing.T, raw []byte, path string) {
		p, err := ParsePath(path)
		if err != nil || !json.Valid(raw) {
			return
		}
		_, _, found, _ := locate(raw, p)
		out, err := RemovePath(raw, p)
		if err != nil {
			if !errors.Is(err, ErrPath) {
				t.Fatalf("got error %v, want one wrapping ErrPath", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("RemovePath(%s, %s) = %s: not JSON", raw, p, out)
		}
		if found != (len(out) < len(raw)) {
			t.Fatalf("RemovePath(%s, %s) = %s: found %v", raw, p, out, found)
		}
		if commonPrefix(raw, out)+commonSuffix(raw, out) < len(out) {
			t.Fatalf("RemovePath(%s, %s) = %s: not one run taken out", raw, p, out)
		}
	})
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
