package jsonpath

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseUnion: every form the three former languages (validator
// patterns, transformer paths, mock volatile paths) accepted for a test or
// the documentation reads the same here.
func TestParseUnion(t *testing.T) {
	tests := []struct {
		src  string
		want string // Pattern.String
	}{
		{"$", "$"},
		{"result", "result"},
		{"$.result.serverInfo.version", "result.serverInfo.version"},
		{"params.arguments.city", "params.arguments.city"},
		{"$[0]", "[0]"},
		{"[0]", "[0]"},
		{"$[2][10]", "[2][10]"},
		{"items[007]", "items[7]"},
		{"$.[0]", "[0]"},
		{"result.content[*].annotations", "result.content[*].annotations"},
		{"**.timestamp", "**.timestamp"},
		{"**.**.timestamp", "**.timestamp"},
		{"a.*.b", "a.*.b"},
		{`result["a.b"]`, `result["a.b"]`},
		{`$["odd.key"].x`, `["odd.key"].x`},
		{`$['a b']`, `["a b"]`},
		{`a['x"y']`, `a["x\"y"]`},
		{`params._meta["io.modelcontextprotocol/clientInfo"]`, `params._meta["io.modelcontextprotocol/clientInfo"]`},
		{"$.tools/call", `["tools/call"]`},
		{"a.$ref", `a["$ref"]`},
		{`["*"]`, `["*"]`},
		{`["\u0041"]`, "A"},
		{`a.é`, `a["é"]`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := p.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src, why, fix string
		col           int
	}{
		{"", "empty pattern", "want a path such as", 1},
		{"$.", "a member name is missing", "$.name", 3},
		{"a..b", "a member name is missing", `[""]`, 3},
		{"$x", "unexpected 'x' after $", `["$x"]`, 2},
		{"$ref.a", "unexpected 'r' after $", `write $.ref.a, or ["$ref"].a`, 2},
		{"a[0]é", "expected '.' or '[' before 'é'", Hint, 5},
		{"a b", "unexpected ' ' in a bare name", `["a b"]`, 2},
		{"a[x]", "not an array index", "[0]", 2},
		{`a["x"`, "expected ']'", "want ]", 2},
		{"a[0]b", "expected '.' or '['", Hint, 5},
		{"a*", "wildcard inside", `["a*"]`, 1},
		{"a.\xff", "not valid UTF-8", Hint, 1},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := Parse(tt.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SyntaxError", err)
			}
			if se.Col != tt.col || !strings.Contains(se.Why, tt.why) || !strings.Contains(se.Fix, tt.fix) {
				t.Errorf("got column %d, %q, fix %q; want column %d, %q, fix with %q", se.Col, se.Why, se.Fix, tt.col, tt.why, tt.fix)
			}
		})
	}
}

func TestParsePathRefusesWildcards(t *testing.T) {
	for _, src := range []string{"a.*", "a[*]", "**.t", "a.**"} {
		_, err := ParsePath(src)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Why, "wildcards are not supported here") {
			t.Errorf("%q: got %v, want a wildcard error", src, err)
		}
	}
	_, err := ParsePath("a[0]b")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Fix != PathHint {
		t.Errorf("a[0]b: got %v, want the fix %q (no wildcards for a path)", err, PathHint)
	}
	got, err := ParsePath(`$.params["a.b"][3]`)
	want := []Seg{Key("params"), Key("a.b"), Index(3)}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
}

func TestRooted(t *testing.T) {
	tests := []struct {
		path []Seg
		want string
	}{
		{nil, "$"},
		{[]Seg{Key("params"), Key("items"), Index(0)}, "$.params.items[0]"},
		{[]Seg{Key("tools/call")}, "$.tools/call"},
		{[]Seg{Key("é")}, "$.é"},
		{[]Seg{Key("a b")}, `$["a b"]`},
		{[]Seg{Key("a.b"), Key("")}, `$["a.b"][""]`},
		{[]Seg{Key("*")}, `$["*"]`},
		{[]Seg{Key("q\"uote")}, `$["q\"uote"]`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := Rooted(tt.path); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			back, err := ParsePath(tt.want)
			if err != nil || !slices.Equal(back, tt.path) {
				t.Errorf("parses back as %v, %v", back, err)
			}
		})
	}
}

func TestRenderMember(t *testing.T) {
	for name, want := range map[string]string{"city": ".city", "a.b": `["a.b"]`, "": `[""]`, "é": `["é"]`} {
		if got := RenderMember(name); got != want {
			t.Errorf("%q: got %s, want %s", name, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	ordered := [][]Seg{
		nil,
		{Key("a")},
		{Key("a"), Key("b")},
		{Key("a"), Index(2)},
		{Key("a"), Index(10)},
		{Key("b")},
	}
	for i := range ordered {
		for j := range ordered {
			got := Compare(ordered[i], ordered[j])
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", Render(ordered[i]), Render(ordered[j]), got, want)
			}
		}
	}
}
