package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5, -0, -0.1e+5, 1E3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} `,
	`{"a":1,}`, `[1,]`, `[01]`, `-`, `1.`, `1e`, `1e+`, `.5`, `+1`, `"\x"`, `"\u12g4"`, `"\u123"`, "\"a\tb\"", "\"a\x00\"",
	`{"a"}`, `{"a":}`, `{a:1}`, `[1 2]`, `tru`, `nulll`, `"unclosed`, `{"a":1}}`, `[[[]]]`, "\"\xff\xfe\"", `"é"`, `{"a":{"b":[{"c":null}]}}`,
	`123`, `0`, `-0`, `00`, `1.5e-3`, `[1,[2,[3]]`, "{\"a\":1}\n", `[true false]`, `"\ud800"`,
}

func TestValid(t *testing.T) {
	for _, s := range validCases {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, want %v (json.Valid)", s, got, want)
		}
	}
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		doc := []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
		if got, want := Valid(doc), json.Valid(doc); got != want {
			t.Errorf("depth %d: got %v, want %v (json.Valid)", depth, got, want)
		}
	}
}

// FuzzValid checks that Valid agrees with encoding/json.Valid.
func FuzzValid(f *testing.F) {
	for _, s := range validCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if got, want := Valid(doc), json.Valid(doc); got != want {
			t.Fatalf("Valid(%q) = %v, want %v (json.Valid)", doc, got, want)
		}
	})
}
