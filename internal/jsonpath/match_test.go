package jsonpath

import (
	"slices"
	"strings"
	"testing"
)

// TestPatternMatch and TestRender moved here from validator/pattern_test.go
// with the code they test; TestRender's quoted names have since been
// written as jsonscan.AppendString writes them ("\n", "\ufffd").

func TestPatternMatch(t *testing.T) {
	k := Key
	ix := Index
	tests := []struct {
		pat   string
		path  []Seg
		match bool
	}{
		{"a.b", []Seg{k("a"), k("b")}, true},
		{"a.b", []Seg{k("a")}, false},
		{"a.b", []Seg{k("a"), k("b"), k("c")}, false},
		{"a.*", []Seg{k("a"), k("x")}, true},
		{"a.*", []Seg{k("a"), ix(0)}, false},
		{"a[*]", []Seg{k("a"), ix(3)}, true},
		{"a[*]", []Seg{k("a"), k("x")}, false},
		{"a[3]", []Seg{k("a"), ix(3)}, true},
		{"a[3]", []Seg{k("a"), ix(4)}, false},
		{"**.t", []Seg{k("t")}, true},
		{"**.t", []Seg{k("a"), ix(1), k("b"), k("t")}, true},
		{"**.t", []Seg{k("a"), k("t"), k("b")}, false},
		{"a.**.t", []Seg{k("a"), k("t")}, true},
		{"a.**.t", []Seg{k("a"), k("t"), k("x"), k("t")}, true},
		{"a.**", []Seg{k("a")}, true},
		{"a.**", []Seg{k("b")}, false},
		{"**.a.**.b", []Seg{k("x"), k("a"), k("y"), k("a"), k("z"), k("b")}, true},
		{"**", nil, true},
		{"$", nil, true},
		{"$", []Seg{k("a")}, false},
		{`["a.b"]`, []Seg{k("a.b")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.pat+"/"+Render(tt.path), func(t *testing.T) {
			p, err := Parse(tt.pat)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Match(tt.path); got != tt.match {
				t.Errorf("got %v, want %v", got, tt.match)
			}
		})
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		path []Seg
		want string
	}{
		{nil, "$"},
		{[]Seg{{Key: "result"}, {Key: "content"}, {Index: 0, IsIndex: true}, {Key: "text"}}, "result.content[0].text"},
		{[]Seg{{Key: "result"}, {Key: "a.b"}}, `result["a.b"]`},
		{[]Seg{{Key: "a\"b\n"}}, `["a\"b\n"]`},
		{[]Seg{{Key: "a\tb\x01\u2028"}}, `["a\tb\u0001\u2028"]`},
		{[]Seg{{Index: 2, IsIndex: true}}, `[2]`},
		{[]Seg{{Key: "\xff"}}, `["\ufffd"]`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := Render(tt.path); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			// The rendered path reads back as the same path (invalid
			// UTF-8 as U+FFFD).
			want := slices.Clone(tt.path)
			for i := range want {
				want[i].Key = strings.ToValidUTF8(want[i].Key, "\uFFFD")
			}
			if back, err := ParsePath(tt.want); err != nil || !slices.Equal(back, want) {
				t.Errorf("ParsePath(%s) = %+v, %v; want %+v", tt.want, back, err, want)
			}
		})
	}
}
