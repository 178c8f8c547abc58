package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
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

var membersValidCases = append([]string{
	`{"a":1,"b":[1,{"c":"}"}],"c\"d":"x\\","e":null}`, ` { "a" : 1 } `, `{"a":1,"a":2}`, `{"a":01}`, `{"a":"\q"}`,
	`{"a\q":1}`, `{"a":1} x`, `{"a":[1,]}`, `{"a":{"b":tru}}`, `{"a":"x`, `{"a" 1}`, `{"a":1,}`,
}, validCases...)

func TestMembersValid(t *testing.T) {
	for _, s := range membersValidCases {
		checkMembersValid(t, []byte(s))
	}
	for _, depth := range []int{MaxDepth - 1, MaxDepth} { // the object is one level
		doc := []byte(`{"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
		checkMembersValid(t, doc)
	}
}

// FuzzMembersValid checks that MembersValid fails exactly when Valid does
// (or the document is not an object), and finds what Members finds.
func FuzzMembersValid(f *testing.F) {
	for _, s := range membersValidCases {
		f.Add([]byte(s))
	}
	f.Fuzz(checkMembersValid)
}

func checkMembersValid(t *testing.T, doc []byte) {
	t.Helper()
	var got, want []Member
	err := MembersValid(doc, func(m Member) bool { got = append(got, m); return true })
	object := SkipSpace(doc, 0) < len(doc) && doc[SkipSpace(doc, 0)] == '{'
	if valid := Valid(doc) && object; (err == nil) != valid {
		t.Fatalf("MembersValid(%q) = %v, want an error: %v", doc, err, !valid)
	}
	if err != nil {
		if !errors.Is(err, ErrSyntax) {
			t.Fatalf("MembersValid(%q) = %v, want ErrSyntax", doc, err)
		}
		return
	}
	if merr := Members(doc, func(m Member) bool { want = append(want, m); return true }); merr != nil {
		t.Fatalf("Members(%q) = %v where MembersValid found it valid", doc, merr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MembersValid(%q) found %+v, Members %+v", doc, got, want)
	}
	// Stopping early still checks the rest.
	n := 0
	if err := MembersValid(doc, func(Member) bool { n++; return false }); err != nil || n > 1 {
		t.Fatalf("MembersValid(%q) stopped after the first member: %v, %d calls", doc, err, n)
	}
}

// TestValidKeyAsValidString: validKey, the member name's scan, gives
// validString's verdict and end on every string, and says it is escaped
// exactly when its name holds a backslash (what MembersValidAt reported
// before, by a search of the name): random names over an alphabet of
// the bytes the scans stop at, their neighbours and escapes, at every
// offset of the eight-byte word, with and without bytes after them.
func TestValidKeyAsValidString(t *testing.T) {
	alphabet := []string{`"`, `\`, `\"`, `\\`, `\n`, `\u00e9`, `\u12`, `\x`, "\x00", "\x1f", " ", "!", "#", "[", "]", "a", "\x7f", "\xc3\xa9", "\xff"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300_000 {
		doc := []byte(strings.Repeat(" ", rng.IntN(9)))
		at := len(doc)
		doc = append(doc, '"')
		for range rng.IntN(20) {
			doc = append(doc, alphabet[rng.IntN(len(alphabet))]...)
		}
		if rng.IntN(4) > 0 {
			doc = append(doc, '"')
		}
		doc = append(doc, strings.Repeat(":1}", rng.IntN(3))...)
		wantEnd, wantOK := validString(doc, at)
		end, esc, ok := validKey(doc, at)
		if end != wantEnd || ok != wantOK {
			t.Fatalf("validKey(%q, %d) = %d, %v; validString %d, %v", doc, at, end, ok, wantEnd, wantOK)
		}
		if wantEsc := bytes.IndexByte(doc[at+1:max(end-1, at+1)], '\\') >= 0; ok && esc != wantEsc {
			t.Fatalf("validKey(%q, %d): escaped %v, want %v", doc, at, esc, wantEsc)
		}
	}
}
