package validator

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParsePattern(t *testing.T) {
	tests := []struct {
		src, canon string
	}{
		{"result", "result"},
		{"$.result.serverInfo.version", "result.serverInfo.version"},
		{"$", "$"},
		{"$[0]", "[0]"},
		{"result.content[*].annotations", "result.content[*].annotations"},
		{"**.timestamp", "**.timestamp"},
		{"**.**.timestamp", "**.timestamp"},
		{"a.**", "a.**"},
		{"a.*.b", "a.*.b"},
		{`result["a.b"]`, `result["a.b"]`},
		{`result["plain"]`, `result.plain`},
		{`["*"]`, `["*"]`},
		{`a[12][*]`, `a[12][*]`},
		{`a.é`, `a["é"]`},
		{`["x\"]y"].z`, `["x\"]y"].z`},
		{`["\u0041"]`, `A`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p, err := parsePattern(tt.src)
			if err != nil {
				t.Fatalf("parsePattern: %v", err)
			}
			if got := p.String(); got != tt.canon {
				t.Errorf("got %q, want %q", got, tt.canon)
			}
		})
	}
}

func TestParsePatternErrors(t *testing.T) {
	tests := []struct {
		src, why string
	}{
		{"", "empty pattern"},
		{"$.", "empty pattern"},
		{"a..b", "empty name"},
		{"a.", "empty name"},
		{".a", "empty name"},
		{"a.[0]", "empty name"},
		{"a[", "unclosed '['"},
		{"a[x]", "bad index"},
		{"a[-1]", "bad index"},
		{"a[]", "bad index"},
		{"a[99999999999999999999]", "out of range"},
		{`a["x`, "unclosed quoted name"},
		{`a["x"`, "expected ']'"},
		{`a["\q"]`, "bad quoted name"},
		{"a[0]b", "expected '.' or '['"},
		{"a b", "in a bare name"},
		{"a]", "in a bare name"},
		{"***", "wildcard inside"},
		{"a*", "wildcard inside"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := parsePattern(tt.src)
			if !errors.Is(err, ErrPattern) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.src)) {
				t.Errorf("got %v, want ErrPattern naming %q and saying %q", err, tt.src, tt.why)
			}
		})
	}
}

func TestPatternMatch(t *testing.T) {
	k := func(s string) seg { return seg{key: s} }
	ix := func(i int) seg { return seg{index: i, isIndex: true} }
	tests := []struct {
		pat   string
		path  []seg
		match bool
	}{
		{"a.b", []seg{k("a"), k("b")}, true},
		{"a.b", []seg{k("a")}, false},
		{"a.b", []seg{k("a"), k("b"), k("c")}, false},
		{"a.*", []seg{k("a"), k("x")}, true},
		{"a.*", []seg{k("a"), ix(0)}, false},
		{"a[*]", []seg{k("a"), ix(3)}, true},
		{"a[*]", []seg{k("a"), k("x")}, false},
		{"a[3]", []seg{k("a"), ix(3)}, true},
		{"a[3]", []seg{k("a"), ix(4)}, false},
		{"**.t", []seg{k("t")}, true},
		{"**.t", []seg{k("a"), ix(1), k("b"), k("t")}, true},
		{"**.t", []seg{k("a"), k("t"), k("b")}, false},
		{"a.**.t", []seg{k("a"), k("t")}, true},
		{"a.**.t", []seg{k("a"), k("t"), k("x"), k("t")}, true},
		{"a.**", []seg{k("a")}, true},
		{"a.**", []seg{k("b")}, false},
		{"**.a.**.b", []seg{k("x"), k("a"), k("y"), k("a"), k("z"), k("b")}, true},
		{"**", nil, true},
		{"$", nil, true},
		{"$", []seg{k("a")}, false},
		{`["a.b"]`, []seg{k("a.b")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.pat+"/"+renderPath(tt.path), func(t *testing.T) {
			p, err := parsePattern(tt.pat)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.match(tt.path); got != tt.match {
				t.Errorf("got %v, want %v", got, tt.match)
			}
		})
	}
}

func TestRenderPath(t *testing.T) {
	tests := []struct {
		path []seg
		want string
	}{
		{nil, "$"},
		{[]seg{{key: "result"}, {key: "content"}, {index: 0, isIndex: true}, {key: "text"}}, "result.content[0].text"},
		{[]seg{{key: "result"}, {key: "a.b"}}, `result["a.b"]`},
		{[]seg{{key: "a\"b\n"}}, `["a\"b\u000a"]`},
		{[]seg{{index: 2, isIndex: true}}, `[2]`},
		{[]seg{{key: "\xff"}}, `["�"]`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := renderPath(tt.path); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
