package termsafe

import (
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tools/call", "tools/call"},
		{"", ""},
		{"café ✓", "café ✓"},
		{"x\x1b]0;pwned\x07\x1b[2J", `x\x1b]0;pwned\x07\x1b[2J`},
		{"a\tb\nc\rd\x7f", `a\x09b\x0ac\x0dd\x7f`},
		{"\u009b31m", `\u009b31m`},
		{"\x9b31m", `\x9b31m`},
		{"abc\u202egnp.exe", `abc\u202egnp.exe`},
		{`back\slash`, `back\slash`},
	}
	for _, tc := range tests {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	s := "plain text"
	if got := String(s); got != s {
		t.Errorf("changed plain text: %q", got)
	}
}

// FuzzString: whatever the input, the output has no character a terminal
// acts on and is valid UTF-8.
func FuzzString(f *testing.F) {
	for _, s := range []string{"x\x1b[2J", "\u009b", "\xff\xfe", "a\u202eb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q, not UTF-8", s, out)
		}
		for i, r := range out {
			if unsafe(r, utf8.RuneLen(r)) {
				t.Fatalf("String(%q) = %q holds %U at %d", s, out, r, i)
			}
		}
	})
}
