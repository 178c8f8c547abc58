package validator

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/replayctl/replayctl/internal/jsonpath"
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
		p.Match([]seg{{Key: "a"}, {Index: 1, IsIndex: true}, {Key: "b"}})
	})
}

func FuzzCheck(f *testing.F) {
	f.Add(uint8(0), []byte(benchExpected), []byte(benchDifferent), "result.content[*].text")
	f.Add(uint8(1), []byte(`{"result":{"tools":[{"name":"a"}]}}`), []byte(`{"result":{"tools":[{"name":"b","x":"{\"a\":[1]}"}]}}`), "result.tools[*].name")
	f.Add(uint8(2), []byte(`{"result":"{\"a\":1}"}`), []byte(`{"error":{"code":1,"message":"m"}}`), "**.a")
	f.Add(uint8(3), []byte(`{"result":{"t":"2026-01-02T03:04:05Z id 12"}}`), []byte(`{"result":{"t":"2027-01-02T03:04:05Z id 13"}}`), "result.t")
	f.Fuzz(func(t *testing.T, mode uint8, e, a []byte, req string) {
		rules := []Rule{{Scope: Scope{Method: "p"}, RequiredFields: []string{req}}}
		if _, err := parsePattern(req); err != nil {
			rules = nil
		}
		v, err := New(WithMode([]Mode{Exact, Structural, Schema}[mode%3]), WithRules(rules...),
			WithNormalize("uuid", "timestamp", "ids"), WithTolerance(0.5, 0.01))
		if err != nil {
			if rules != nil && errors.Is(err, ErrConfig) {
				return // "$" as a required field
			}
			t.Fatal(err)
		}
		exact, _ := New()
		methods := []string{"x", "p", "tools/call", "tools/list", "initialize"}
		s := Subject{Method: methods[int(mode)%len(methods)]}
		vd, err := v.Check(s, e, a)
		valid := json.Valid(e) && json.Valid(a)
		if valid && err != nil {
			t.Fatalf("valid inputs: %v", err)
		}
		if err != nil {
			return
		}
		if len(vd.Diffs) > MaxDifferences+1 {
			t.Fatalf("got %d differences", len(vd.Diffs))
		}
		if !valid {
			return
		}
		self, err := v.Check(s, e, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range self.Diffs {
			if vd.Mode != Schema && d.Kind != DiffMissing {
				t.Fatalf("Check(x, x) in %s: %+v", vd.Mode, d)
			}
		}
		// Structural differences are a subset of the exact ones.
		if vd.Mode == Structural && vd.Transition == "" {
			all, _ := exact.Check(s, e, a)
			if len(all.Diffs) > MaxDifferences {
				return
			}
			paths := map[string]bool{}
			for _, d := range all.Diffs {
				paths[d.Path] = true
			}
			for _, d := range vd.Diffs {
				if !paths[d.Path] && d.Kind != DiffTruncated {
					t.Fatalf("structural difference %+v not among the exact ones %v", d, all.Diffs)
				}
			}
		}
	})
}

func FuzzRequiredPath(f *testing.F) {
	for _, s := range []string{"result.tools[*].name", "**.id", "result.*", "result.content[0].text.a", `$["a.b"][*]`} {
		f.Add(s, []byte(`{"id":1,"result":{"tools":[{"name":"a","id":2}],"content":[{"text":"{\"a\":[1,{\"id\":3}]}"}],"a.b":[1]}}`))
	}
	f.Fuzz(func(t *testing.T, src string, doc []byte) {
		p, err := parsePattern(src)
		if err != nil || !json.Valid(doc) {
			return
		}
		got := collect(bytes.TrimSpace(doc), p)
		for i, m := range got {
			if !p.Match(m.path) {
				t.Fatalf("collected %s, which %q does not match", renderPath(m.path), p.String())
			}
			if !json.Valid(m.val) {
				t.Fatalf("collected value %q is not JSON", m.val)
			}
			if i > 0 && jsonpath.Compare(got[i-1].path, m.path) >= 0 {
				t.Fatalf("out of order: %s then %s", renderPath(got[i-1].path), renderPath(m.path))
			}
		}
		// Comparing a document with itself on the pattern finds nothing.
		w := walker{}
		w.required([]pattern{p}, bytes.TrimSpace(doc), bytes.TrimSpace(doc))
		for _, d := range w.result() {
			if d.Kind != DiffMissing {
				t.Fatalf("self-comparison: %+v", d)
			}
		}
	})
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"created item 1234", "at 2026-01-02T03:04:05.5+01:00", "0b9a3c1e-1234-4abc-8def-0123456789ab", "v2 ord_9f8e7d6c -7",
		"Mon Nov 23 2026 10:00:00 GMT+0000 (Coordinated Universal Time)", "Mon, 23 Nov 2026 10:00:00 GMT", "Mon Nov  3 10:00:00 UTC 2026", "11/23/2026, 10:00:00 AM"} {
		f.Add(s)
	}
	all := normUUID | normTimestamp | normIDs
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range []normSet{normUUID, normTimestamp, normIDs, all} {
			once := n.apply(s)
			if twice := n.apply(once); twice != once {
				t.Fatalf("not idempotent (%d): %q -> %q -> %q", n, s, once, twice)
			}
		}
	})
}
