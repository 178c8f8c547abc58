package tape

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestSensitive(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"Authorization", true}, {"authorization", true}, {"Proxy-Authorization", true},
		{"Cookie", true}, {"Set-Cookie", true}, {"X-Api-Key", true}, {"x_api_key", true},
		{"api_key", true}, {"apiKey", true}, {"API-KEY", true}, {"apikey", true},
		{"password", true}, {"Password", true}, {"passwd", true}, {"secret", true},
		{"client_secret", true}, {"clientSecret", true}, {"token", true}, {"access_token", true},
		{"refreshToken", true}, {"id_token", true}, {"private_key", true}, {"X-Auth-Token", true},
		// the names issue 22 found passing, and names matched by pattern
		{"pass", true}, {"pwd", true}, {"bearer", true}, {"jwt", true}, {"auth", true}, {"access_key", true},
		{"db_password", true}, {"session_secret", true}, {"tokens", true}, {"aws_secret_access_key", true},
		{"X-Amz-Security-Token", true}, {"google_credentials", true},
		// not credentials, though they look alike
		{"maxTokens", false}, {"progressToken", false}, {"inputTokens", false}, {"Mcp-Session-Id", false},
		{"Content-Type", false}, {"key", false}, {"name", false}, {"", false}, {"author", false},
		{"authority", false}, {"bypass", false}, {"passenger", false},
	}
	for _, tc := range tests {
		if got := Sensitive(tc.name); got != tc.want {
			t.Errorf("Sensitive(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, n := range SensitiveNames() {
		if !Sensitive(n) {
			t.Errorf("SensitiveNames lists %q, which Sensitive does not match", n)
		}
	}
}

func TestMask(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", `{"a":1,"b":"x"}`, `{"a":1,"b":"x"}`},
		{"params", `{"jsonrpc":"2.0","id":1,"method":"login","params":{"user":"ann","password":"hunter2"}}`,
			`{"jsonrpc":"2.0","id":1,"method":"login","params":{"user":"ann","password":"[redacted]"}}`},
		{"any value, any depth", `{"result":{"list":[{"api_key":{"k":1}},{"token": 42 }],"maxTokens":5}}`,
			`{"result":{"list":[{"api_key":"[redacted]"},{"token": "[redacted]" }],"maxTokens":5}}`},
		{"null stays", `{"token":null}`, `{"token":null}`},
		{"escaped name", `{"pass\u0077ord":"x"}`, `{"pass\u0077ord":"[redacted]"}`},
		{"a value that looks like a name", `{"note":"password","x":"token"}`, `{"note":"password","x":"token"}`},
		{"string with quotes", `{"secret":"a\"b","c":"d"}`, `{"secret":"[redacted]","c":"d"}`},
		{"not JSON", `password: hunter2`, `password: hunter2`},
		{"broken after", `{"token":"abc","x":`, `{"token":"[redacted]","x":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Mask([]byte(tc.in))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	in := []byte(`{"a":1}`)
	if out := Mask(in); &out[0] != &in[0] {
		t.Errorf("nothing to mask: want the same slice back")
	}
}

func TestMaskHeaders(t *testing.T) {
	h := map[string][]string{"Authorization": {"Bearer x"}, "Content-Type": {"application/json"}, "set-cookie": {"a=1", "b=2"}}
	got := MaskHeaders(h)
	want := map[string][]string{"Authorization": {Masked}, "Content-Type": {"application/json"}, "set-cookie": {Masked, Masked}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if h["Authorization"][0] != "Bearer x" {
		t.Errorf("MaskHeaders changed its argument")
	}
	plain := map[string][]string{"Accept": {"*/*"}}
	if got := MaskHeaders(plain); reflect.ValueOf(got).Pointer() != reflect.ValueOf(plain).Pointer() {
		t.Errorf("nothing to mask: want the same map back")
	}
}

// FuzzMask: any bytes (a tape's or a server's message) are masked without
// a panic; JSON stays JSON, and no sensitive member keeps a value.
func FuzzMask(f *testing.F) {
	for _, s := range []string{`{"password":"x"}`, `{"a":[{"token":1},"api_key"]}`, `{"pass\u0077ord":"x"}`, `"token"`, `{"token":`, `[{"secret":{"secret":2}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := Mask(in)
		if !json.Valid(in) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Mask(%s) = %s: not JSON", in, out)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var check func(v any)
		check = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, m := range x {
					if Sensitive(k) && m != nil && m != Masked {
						t.Fatalf("Mask(%s) = %s: %q keeps %v", in, out, k, m)
					}
					check(m)
				}
			case []any:
				for _, m := range x {
					check(m)
				}
			}
		}
		check(v)
	})
}

func BenchmarkMask(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Paris","units":"metric","days":3},"_meta":{"progressToken":"p-42"}}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		Mask(msg)
	}
}

func TestMaskDifference(t *testing.T) {
	tests := []struct {
		name, path, e, a string
		wantE, wantA     string
	}{
		{"a secret value", `params.arguments["api_key"]`, `"old"`, `"new"`, `"[redacted]"`, `"[redacted]"`},
		{"inside a secret", `result.headers.Authorization.scheme`, `1`, `2`, `"[redacted]"`, `"[redacted]"`},
		{"a secret added", `params.token`, ``, `"x"`, ``, `"[redacted]"`},
		{"a secret null", `params.token`, `null`, `"x"`, `null`, `"[redacted]"`},
		{"a secret inside a value", `params`, `{"token":"a","n":1}`, `{"n":2}`, `{"token":"[redacted]","n":1}`, `{"n":2}`},
		{"nothing secret", `result.n`, `1`, `2`, `1`, `2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, a := []byte(tt.e), []byte(tt.a)
			if tt.e == "" {
				e = nil
			}
			gotE, gotA := MaskDifference(tt.path, e, a)
			if string(gotE) != tt.wantE || string(gotA) != tt.wantA {
				t.Errorf("got %s, %s, want %s, %s", gotE, gotA, tt.wantE, tt.wantA)
			}
			if tt.wantA == tt.a && len(a) > 0 && &gotA[0] != &a[0] {
				t.Errorf("nothing masked, but the value was copied")
			}
		})
	}
}
