package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"
)

func TestMembers(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // key=value pairs
		err  bool
	}{
		{"empty", `{}`, nil, false},
		{"spaces", " { \"a\" : 1 , \"b\":[1,{\"c\":\"}\"}] } ", []string{`a=1`, `b=[1,{"c":"}"}]`}, false},
		{"escaped key", `{"a\"b":"x\\"}`, []string{`a\"b="x\\"`}, false},
		{"literals", `{"t":true,"f":false,"n":null,"x":-1.5e3}`, []string{"t=true", "f=false", "n=null", "x=-1.5e3"}, false},
		{"not object", `[1]`, nil, true},
		{"unclosed", `{"a":1`, nil, true},
		{"unclosed string", `{"a":"x}`, nil, true},
		{"trailing", `{"a":1} x`, nil, true},
		{"missing colon", `{"a" 1}`, nil, true},
		{"bad literal", `{"a":nul}`, nil, true},
		{"empty input", ``, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := Members([]byte(tt.doc), func(m Member) bool {
				got = append(got, string(m.Key)+"="+tt.doc[m.Start:m.End])
				return true
			})
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if err != nil {
				if !errors.Is(err, ErrSyntax) {
					t.Fatalf("err = %v, want ErrSyntax", err)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("member %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestMembersStopsEarly(t *testing.T) {
	n := 0
	err := Members([]byte(`{"a":1,"b":2,"c":`), func(Member) bool { n++; return n < 2 })
	if err != nil || n != 2 {
		t.Fatalf("n = %d, err = %v; want 2, nil", n, err)
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2,{"b":"c"}]}`, `{"a":"\""}`, `[`, `{"a"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := Members(doc, func(m Member) bool {
			if m.Start < 0 || m.End > len(doc) || m.Start > m.End {
				t.Fatalf("member out of range: %d..%d of %d", m.Start, m.End, len(doc))
			}
			return true
		})
		// Every valid JSON object must scan without error.
		if err != nil && json.Valid(doc) && len(doc) > 0 {
			var v map[string]json.RawMessage
			if json.Unmarshal(doc, &v) == nil {
				t.Fatalf("valid object %q: %v", doc, err)
			}
		}
	})
}

// TestEightAtATime checks the word-at-a-time masks against a byte loop,
// at every offset of a quote, a backslash or a control character among
// plain bytes (also bytes ≥ 0x80, whose high bit the masks use).
func TestEightAtATime(t *testing.T) {
	for _, filler := range []byte{'a', ' ', 0x7f, 0x80, 0xff, 0x21, 0x5d, 0x1f + 1} {
		for _, stop := range []byte{'"', '\\', 0x00, 0x1f, 0x0a} {
			for n := range 20 {
				for at := 0; at <= n; at++ {
					b := bytes.Repeat([]byte{filler}, n)
					if at < n {
						b[at] = stop
					}
					wantSpecial, wantQB := n, n
					for k, c := range b {
						if c == '"' || c == '\\' || c < 0x20 {
							wantSpecial = min(wantSpecial, k)
						}
						if c == '"' || c == '\\' {
							wantQB = min(wantQB, k)
						}
					}
					if got := firstSpecial(b, 0); got != wantSpecial {
						t.Fatalf("firstSpecial(%q) = %d, want %d", b, got, wantSpecial)
					}
					if got := firstQuoteOrBackslash(b, 0, len(b)); got != wantQB {
						t.Fatalf("firstQuoteOrBackslash(%q) = %d, want %d", b, got, wantQB)
					}
				}
			}
		}
	}
}

// TestEightAtATimeRandom compares the masks with a byte loop on random
// words of bytes next to the ones they look for (several stops a word:
// a borrow marks bytes above the first falsely).
func TestEightAtATimeRandom(t *testing.T) {
	alphabet := []byte{'"', '\\', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x22 + 1, 0x5b, 0x5c + 1, 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 24)
	for range 200_000 {
		n := rng.IntN(len(b) + 1)
		for k := range n {
			b[k] = alphabet[rng.IntN(len(alphabet))]
		}
		doc := b[:n]
		wantSpecial, wantQB := n, n
		for k := n - 1; k >= 0; k-- {
			if c := doc[k]; c == '"' || c == '\\' || c < 0x20 {
				wantSpecial = k
			}
			if c := doc[k]; c == '"' || c == '\\' {
				wantQB = k
			}
		}
		if got := firstSpecial(doc, 0); got != wantSpecial {
			t.Fatalf("firstSpecial(%q) = %d, want %d", doc, got, wantSpecial)
		}
		if got := firstQuoteOrBackslash(doc, 0, n); got != wantQB {
			t.Fatalf("firstQuoteOrBackslash(%q) = %d, want %d", doc, got, wantQB)
		}
	}
}
