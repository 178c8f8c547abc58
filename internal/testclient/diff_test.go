package testclient

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	a, err := Parse(`{"client":0,"step":"initialize","ok":true,"result":{"x":1}}
{"client":0,"step":"ping","ok":true,"result":{}}
`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		b    string
		want string // a part of the one difference; "" for none
	}{
		{"same", `{"client":0,"step":"initialize","ok":true,"result":{"x":1}}
{"client":0,"step":"ping","ok":true,"result":{}}`, ""},
		{"result", `{"client":0,"step":"initialize","ok":true,"result":{"x":2}}
{"client":0,"step":"ping","ok":true,"result":{}}`, `got result {"x":2}`},
		{"error", `{"client":0,"step":"initialize","ok":true,"result":{"x":1}}
{"client":0,"step":"ping","ok":false,"error":{"code":-32601}}`, "got ok false"},
		{"missing", `{"client":0,"step":"initialize","ok":true,"result":{"x":1}}`, `missing step 0 "ping"`},
		{"other step", `{"client":0,"step":"initialize","ok":true,"result":{"x":1}}
{"client":1,"step":"ping","ok":true,"result":{}}`, `got client 1 "ping"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			d := Diff(a, b)
			switch {
			case tc.want == "" && d != nil:
				t.Errorf("got %q, want no difference", d)
			case tc.want != "" && (len(d) != 1 || !strings.Contains(d[0], tc.want)):
				t.Errorf("got %q, want one difference with %q", d, tc.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"not json\n", `{"client":0}` + "\n", `{"client":0,"step":"x","ok":true,"extra":1}` + "\n"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q): got no error", in)
		}
	}
}
