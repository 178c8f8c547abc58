package transformer

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in      string
		want    string // canonical String(); "" when an error is wanted
		wantErr string
	}{
		{"$.params.arguments.city", "$.params.arguments.city", ""},
		{"params.arguments.city", "$.params.arguments.city", ""},
		{"$", "$", ""},
		{"items[0]", "$.items[0]", ""},
		{"$.result.content[0].text", "$.result.content[0].text", ""},
		{"$[2][10]", "$[2][10]", ""},
		{`$["odd.key"].x`, `$["odd.key"].x`, ""},
		{`$['a b']`, `$["a b"]`, ""}, // was $.a b: a space in a bare name is refused by the one path language (validator's rule)
		{`$["q\"uote"]`, `$["q\"uote"]`, ""},
		{"$.tools/call", "$.tools/call", ""},
		{"", "", "empty"},
		{"  ", "", "empty"},
		{"$.", "", "column 3: a member name is missing"},
		{"a..b", "", "column 3: a member name is missing"},
		{"a[", "", "not closed"},
		{"a[-1]", "", "not an array index"},
		{"a[+1]", "", "not an array index"},
		{"a[x]", "", "not an array index"},
		{"a[]", "", "not an array index"},
		{"a[*]", "", "wildcards"},
		{"a.*", "", "wildcards"},
		{"**.timestamp", "", "wildcards"},
		{"$x", "", "column 2: unexpected 'x'"},
		{"a]", "", "unexpected ']'"},
		{`a["x`, "", "not closed"},
		{`a["x"`, "", "want ]"},
		{`a['x`, "", "not closed"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParsePath(tt.in)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, %v; want an ErrBadPath containing %q", p, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := p.String(); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			again, err := ParsePath(p.String())
			if err != nil || again.String() != p.String() {
				t.Errorf("String does not parse back: got %v, %v", again, err)
			}
		})
	}
}

// odd is a message with odd spacing: edits keep it everywhere but at the
// edited value.
const odd = "{ \"jsonrpc\" : \"2.0\",\n  \"id\":7 ,\"method\":\"tools/call\",\n  \"params\" : {\"name\":\"weather\",  \"arguments\" : { \"city\" : \"Paris\" , \"days\":[1, 2,3] } }\n}\n"

func TestSetPath(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		path    string
		value   string
		want    string
		wantErr string
	}{
		{"replace, odd spacing kept", odd, "$.params.arguments.city", `"Lyon"`,
			strings.Replace(odd, `"Paris"`, `"Lyon"`, 1), ""},
		{"replace an element", odd, "params.arguments.days[1]", `{"n":2}`,
			strings.Replace(odd, "[1, 2,3]", `[1, {"n":2},3]`, 1), ""},
		{"add a member at the end", odd, "params.arguments.units", `"C"`,
			strings.Replace(odd, `[1, 2,3] }`, `[1, 2,3],"units":"C" }`, 1), ""},
		{"add with missing objects", `{"id":1}`, "$.params.arguments.token", `"t"`,
			`{"id":1,"params":{"arguments":{"token":"t"}}}`, ""},
		{"add into an empty object", `{"params": { }}`, "params.x", `1`, `{"params": {"x":1 }}`, ""},
		{"add into {}", `{}`, "a", `true`, `{"a":true}`, ""},
		{"escaped name matches", `{"a\u0062":1}`, "ab", `2`, `{"a\u0062":2}`, ""},
		{"name needing escapes is added escaped", `{}`, `$["q\"<"]`, `1`, `{"q\"<":1}`, ""},
		{"first duplicate is set", `{"a":1,"a":2}`, "a", `3`, `{"a":3,"a":2}`, ""},
		{"the whole document", ` {"a":1} `, "$", `[]`, ` [] `, ""},
		{"index out of range", odd, "params.arguments.days[3]", `0`, "", "index 3 is out of range at $.params.arguments.days (3 elements)"},
		{"index into a missing array", `{}`, "items[0]", `0`, "", "only objects are created"},
		{"a name in a string", odd, "method.x", `0`, "", "$.method is a string, not an object"},
		{"an index in an object", odd, "params[0]", `0`, "", "$.params is an object, not an array"},
		{"a value that is not JSON", odd, "id", `{`, "", "not JSON"},
		{"a document that is not JSON", `{"a":`, "a", `1`, "", "cannot edit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetPath([]byte(tt.raw), MustParsePath(tt.path), []byte(tt.value))
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrPath) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an ErrPath containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			v, ok, err := GetPath(got, MustParsePath(tt.path))
			if err != nil || !ok || string(v) != tt.value {
				t.Errorf("GetPath after SetPath: got %s, %v, %v; want %s", v, ok, err, tt.value)
			}
		})
	}
}

func TestRemovePath(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		path    string
		want    string
		wantErr string
	}{
		{"a middle member", `{"a":1, "b":2, "c":3}`, "b", `{"a":1, "c":3}`, ""},
		{"the last member", `{"a":1, "b":2 }`, "b", `{"a":1 }`, ""},
		{"the first member", `{ "a":1 ,  "b":2}`, "a", `{ "b":2}`, ""},
		{"the only member", `{ "a":1 }`, "a", `{  }`, ""},
		{"nested, odd spacing kept", odd, "params.arguments.city",
			strings.Replace(odd, `{ "city" : "Paris" , "days"`, `{ "days"`, 1), ""},
		{"an element", odd, "params.arguments.days[1]", strings.Replace(odd, "[1, 2,3]", "[1,3]", 1), ""},
		{"the first element", `[ 1, 2]`, "[0]", `[ 2]`, ""},
		{"missing member", odd, "params.nope", odd, ""},
		{"missing parent", odd, "params.nope.deeper", odd, ""},
		{"index out of range", `[1]`, "[4]", `[1]`, ""},
		{"a name in an array", `[1]`, "a", `[1]`, ""},
		{"escaped name", `{"x":0,"a\u0062":1}`, "ab", `{"x":0}`, ""},
		{"the whole document", `{}`, "$", "", "cannot be removed"},
		{"a document that is not JSON", `{"a":[`, "a[0]", "", "cannot edit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RemovePath([]byte(tt.raw), MustParsePath(tt.path))
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrPath) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an ErrPath containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestGetPath(t *testing.T) {
	tests := []struct {
		path   string
		want   string
		wantOK bool
	}{
		{"$.params.arguments.city", `"Paris"`, true},
		{"params.arguments.days[2]", `3`, true},
		{"params.arguments", `{ "city" : "Paris" , "days":[1, 2,3] }`, true},
		{"params.arguments.days[3]", "", false},
		{"params.name.x", "", false},
		{"id[0]", "", false},
		{"nope", "", false},
		{"$", strings.TrimSpace(odd), true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, ok, err := GetPath([]byte(odd), MustParsePath(tt.path))
			if err != nil || ok != tt.wantOK || string(got) != tt.want {
				t.Errorf("got %s, %v, %v; want %s, %v", got, ok, err, tt.want, tt.wantOK)
			}
		})
	}
	if _, _, err := GetPath([]byte(`{"a":`), MustParsePath("a")); !errors.Is(err, ErrPath) {
		t.Errorf("broken document: got %v, want ErrPath", err)
	}
}
