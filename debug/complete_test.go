package debug

import (
	"slices"
	"testing"
)

func TestCompleteLine(t *testing.T) {
	methods := func() []string { return []string{"initialize", "tools/call", "tools/list"} }
	for _, tc := range []struct {
		line       string
		pos        int
		head, tail string
		want       []string
	}{
		{"st", 2, "", "", []string{"step", "status"}},
		{"con", 3, "", "", []string{"continue"}},
		{"", 0, "", "", nil}, // filled below: every command
		{"zz", 2, "", "", nil},
		{"break tools/", 12, "break ", "", []string{"tools/call", "tools/list"}},
		{"b in", 4, "b ", "", []string{"initialize"}},
		{"seek t x", 6, "seek ", " x", []string{"tools/call", "tools/list"}},
		{"print a", 7, "print ", "", []string{"answer"}},
		{"speed ", 6, "speed ", "", []string{"fast", "realtime", "10x"}},
		{"step 1", 6, "step ", "", nil},
		{"bogus x", 7, "bogus ", "", nil},
		{"break tools/call x", 18, "break tools/call ", "", nil},
	} {
		t.Run(tc.line, func(t *testing.T) {
			want := tc.want
			if tc.line == "" {
				for _, c := range Commands() {
					want = append(want, c.Name)
				}
			}
			head, got, tail := Complete(tc.line, tc.pos, methods)
			if head != tc.head || tail != tc.tail || !slices.Equal(got, want) {
				t.Errorf("got %q %q %q, want %q %q %q", head, got, tail, tc.head, want, tc.tail)
			}
		})
	}
}
