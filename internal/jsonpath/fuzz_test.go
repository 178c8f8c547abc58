package jsonpath

import (
	"errors"
	"slices"
	"testing"
)

// FuzzParse: any string either fails with a *SyntaxError or gives a
// pattern whose String parses back to the same elements; a path without
// wildcards also goes through ParsePath, Rooted and Render and back, and
// matches itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"$.params.arguments.city", "items[0]", `$["a.b"]['c'][2]`, "a..b", "[", "$", `$["\u00e9"]`,
		"result.content[*].annotations", "**.timestamp", "a.*.b", `["x\"]y"].z`, "$x", "a b", "$.[0]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Col < 1 || se.Col > len(s)+1 || se.Why == "" || se.Fix == "" {
				t.Fatalf("%q: got error %#v, want a *SyntaxError with a column, why and fix", s, err)
			}
			return
		}
		again, err := Parse(p.String())
		if err != nil || !slices.Equal(again.Elems, p.Elems) {
			t.Fatalf("%q → %s → %v, %v", s, p, again.Elems, err)
		}
		if p.HasWildcard() {
			if _, err := ParsePath(s); err == nil {
				t.Fatalf("%q: ParsePath took a wildcard", s)
			}
			return
		}
		path, err := ParsePath(s)
		if err != nil {
			t.Fatalf("%q: Parse took it, ParsePath did not: %v", s, err)
		}
		if !p.Match(path) {
			t.Fatalf("%q does not match its own path", s)
		}
		for _, text := range []string{Rooted(path), Render(path)} {
			back, err := ParsePath(text)
			if err != nil || !slices.Equal(back, path) {
				t.Fatalf("%q → %s → %v, %v", s, text, back, err)
			}
		}
	})
}
