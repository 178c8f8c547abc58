package validator

import (
	"encoding/json"
	"testing"
)

func FuzzCompare(f *testing.F) {
	f.Add([]byte(benchExpected), []byte(benchDifferent))
	f.Add([]byte(`{"result":[1,2,{"a.b":1e5}]}`), []byte(`{"result":[1,{"x":"\u0041"}]}`))
	f.Add([]byte(`[1,"a",null,true]`), []byte(`{"id":1}`))
	f.Add([]byte(`{"a":1,"a":2}`), []byte(`{"a":2.0e0}`))
	f.Fuzz(func(t *testing.T, e, a []byte) {
		v, _ := New()
		d, err := v.Compare(e, a)
		valid := json.Valid(e) && json.Valid(a)
		if valid && err != nil {
			t.Fatalf("valid inputs: %v", err)
		}
		if err != nil {
			return
		}
		if len(d) > MaxDifferences+1 {
			t.Fatalf("got %d differences", len(d))
		}
		if !valid {
			return // fast path: identical bytes outside the envelope
		}
		if self, _ := v.Compare(e, e); self != nil {
			t.Fatalf("Compare(x, x) = %v", self)
		}
		back, _ := v.Compare(a, e)
		if (d == nil) != (back == nil) || len(d) != len(back) {
			t.Fatalf("not symmetric: %d vs %d differences", len(d), len(back))
		}
		if len(d) == 0 || len(d) > MaxDifferences {
			return
		}
		// Every reported path parses as a pattern, and ignoring them all
		// leaves nothing.
		var paths []string
		for _, x := range d {
			paths = append(paths, x.Path)
		}
		iv, err := New(WithIgnore(paths...))
		if err != nil {
			t.Fatalf("paths %q do not parse: %v", paths, err)
		}
		if rest, _ := iv.Compare(e, a); rest != nil {
			t.Fatalf("ignoring %q still leaves %v", paths, rest)
		}
	})
}

func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"result.content[*].annotations", "**.timestamp", `$.result["a.b"][3]`, "a.*.b", "$", `["\u0041"]`, "a..b", "[", `["`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePattern(s)
		if err != nil {
			return
		}
		canon := p.String()
		q, err := parsePattern(canon)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, s, err)
		}
		if q.String() != canon {
			t.Fatalf("canonical form not stable: %q -> %q", canon, q.String())
		}
		p.match([]seg{{key: "a"}, {index: 1, isIndex: true}, {key: "b"}})
	})
}
