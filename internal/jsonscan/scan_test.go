package jsonscan

import (
	"encoding/json"
	"errors"
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
