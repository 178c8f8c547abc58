package tape

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testleak"
)

const testSecret = "ghp_S3cr3t/Value+42"

func testEnv(vals map[string]string) RedactOption {
	return WithLookupEnv(func(n string) (string, bool) { v, ok := vals[n]; return v, ok })
}

func mustRedactor(t testing.TB, opts ...RedactOption) *Redactor {
	t.Helper()
	r, err := NewRedactor(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRedactJSON(t *testing.T) {
	env := testEnv(map[string]string{"GH": testSecret, "Q": `a"b\c`})
	tests := []struct {
		name string
		opts []RedactOption
		in   string
		want string
	}{
		{"password string", nil,
			`{"params":{"arguments":{"password":"hunter2","user":"bob"}}}`,
			`{"params":{"arguments":{"password":"[redacted:key:string]","user":"bob"}}}`},
		{"odd spacing kept", nil,
			`{ "a" : { "api_key" :  "k1" ,"b":1 } }`,
			`{ "a" : { "api_key" :  "[redacted:key:string]" ,"b":1 } }`},
		{"token glob, number and object", nil,
			`{"result":{"accessToken":12345,"client_secret":{"a":[1,"x"]},"X-Auth-Token":["t"]}}`,
			`{"result":{"accessToken":"[redacted:key:number]","client_secret":"[redacted:key:object]","X-Auth-Token":"[redacted:key:array]"}}`},
		{"false positives kept", nil,
			`{"params":{"_meta":{"progressToken":"p1"},"maxTokens":100,"nextCursor":"c","usage":{"inputTokens":3,"cache_read_input_tokens":1,"output_tokens":2,"tokenCount":4}}}`,
			`{"params":{"_meta":{"progressToken":"p1"},"maxTokens":100,"nextCursor":"c","usage":{"inputTokens":3,"cache_read_input_tokens":1,"output_tokens":2,"tokenCount":4}}}`},
		{"a list of tokens is redacted", nil,
			`{"accessTokens":["a","b"],"tokenType":"Bearer"}`,
			`{"accessTokens":"[redacted:key:array]","tokenType":"[redacted:key:string]"}`},
		{"bool null empty marker kept", nil,
			`{"secret":true,"token":null,"password":"","apiKey":"[redacted:key:string]"}`,
			`{"secret":true,"token":null,"password":"","apiKey":"[redacted:key:string]"}`},
		{"escaped key name", nil,
			`{"pass\u0077ord":"x"}`,
			`{"pass\u0077ord":"[redacted:key:string]"}`},
		{"user glob", []RedactOption{RedactKeys("card_*")},
			`{"card_pin":1234,"pin":5}`,
			`{"card_pin":"[redacted:key:number]","pin":5}`},
		{"user glob matches an exception", []RedactOption{RedactKeys("progressToken")},
			`{"progressToken":7}`,
			`{"progressToken":"[redacted:key:number]"}`},
		{"defaults dropped", []RedactOption{KeepDefaults(false), RedactKeys("pin")},
			`{"password":"x","pin":"1"}`,
			`{"password":"x","pin":"[redacted:key:string]"}`},
		{"env value in nested string", []RedactOption{env, RedactEnv("GH")},
			`{"params":{"arguments":{"message":"Bearer ` + testSecret + ` and ` + testSecret + `"}},"id":1}`,
			`{"params":{"arguments":{"message":"Bearer [redacted:env:GH] and [redacted:env:GH]"}},"id":1}`},
		{"env value escaped as \\/ and \\u", []RedactOption{env, RedactEnv("GH")},
			`{"a":"x ghp_S3cr3t\/Value\u002b42 y","b":"\u0067hp_S3cr3t/Value+42"}`,
			`{"a":"x [redacted:env:GH] y","b":"[redacted:env:GH]"}`},
		{"env value that needs escaping", []RedactOption{env, RedactEnv("Q")},
			`{"a":"<a\"b\\c>"}`,
			`{"a":"<[redacted:env:Q]>"}`},
		{"env value in JSON text in a string", []RedactOption{env, RedactEnv("Q")},
			`{"text":"{\"k\":\"a\\\"b\\\\c\"}"}`,
			`{"text":"{\"k\":\"[redacted:env:Q]\"}"}`},
		{"env value as a key", []RedactOption{env, RedactEnv("GH")},
			`{"` + testSecret + `":1}`,
			`{"[redacted:env:GH]":1}`},
		{"nothing to do", []RedactOption{env, RedactEnv("GH")},
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"broken JSON: redacted up to the break", nil,
			`{"password":"x","a":"unterminated`,
			`{"password":"[redacted:key:string]","a":"unterminated`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRedactor(t, tt.opts...)
			if got := string(r.JSON([]byte(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestRedactMessageHeadersAndCounts(t *testing.T) {
	r := mustRedactor(t, testEnv(map[string]string{"GH": testSecret}), RedactEnv("GH"), RedactHeaders("X-Custom"))
	orig := map[string][]string{
		"Authorization":  {"Bearer " + testSecret},
		"Cookie":         {"a=b"},
		"X-Api-Key":      {"k"},
		"X-Custom":       {"c"},
		"X-Echo":         {"was " + testSecret},
		"Content-Type":   {"application/json"},
		"Mcp-Session-Id": {"abc"},
	}
	m := Message{
		Msg:   json.RawMessage(`{"params":{"arguments":{"token":"t1","q":"` + testSecret + `"}}}`),
		HTTP:  &HTTPMeta{Status: 200, Headers: orig},
		Extra: map[string]json.RawMessage{"note": json.RawMessage(`"` + testSecret + `"`)},
	}
	msgBefore := string(m.Msg)
	r.Message(&m)
	want := map[string][]string{
		"Authorization":  {HeaderMarker},
		"Cookie":         {HeaderMarker},
		"X-Api-Key":      {HeaderMarker},
		"X-Custom":       {HeaderMarker},
		"X-Echo":         {"was [redacted:env:GH]"},
		"Content-Type":   {"application/json"},
		"Mcp-Session-Id": {"abc"},
	}
	if !reflect.DeepEqual(m.HTTP.Headers, want) {
		t.Errorf("headers: got %v, want %v", m.HTTP.Headers, want)
	}
	if orig["Authorization"][0] == HeaderMarker {
		t.Error("the caller's header map was written to")
	}
	if got := string(m.Msg); got != `{"params":{"arguments":{"token":"[redacted:key:string]","q":"[redacted:env:GH]"}}}` {
		t.Errorf("msg: got %s (was %s)", got, msgBefore)
	}
	if got := string(m.Extra["note"]); got != `"[redacted:env:GH]"` {
		t.Errorf("extra: got %s", got)
	}
	c := r.Counts()
	wantCounts := Counts{
		Env:     map[string]int{"GH": 3},
		Keys:    map[string]int{"token": 1},
		Headers: map[string]int{"Authorization": 1, "Cookie": 1, "X-Api-Key": 1, "X-Custom": 1},
	}
	if !reflect.DeepEqual(c, wantCounts) || c.Total() != 8 {
		t.Errorf("counts: got %+v (total %d), want %+v", c, c.Total(), wantCounts)
	}
}

func TestRedactorErrorsAndMissing(t *testing.T) {
	env := testEnv(map[string]string{"SHORT": "abc", "EMPTY": ""})
	for _, opts := range [][]RedactOption{
		{env, RedactEnv("SHORT")},
		{env, RedactEnv("BAD-NAME")},
		{RedactKeys("**")},
	} {
		if _, err := NewRedactor(opts...); err == nil {
			t.Errorf("%d options: no error", len(opts))
		}
	}
	r := mustRedactor(t, env, RedactEnv("EMPTY", "UNSET"))
	if got := r.Missing(); !reflect.DeepEqual(got, []string{"EMPTY", "UNSET"}) {
		t.Errorf("missing: got %v", got)
	}
}

func TestRedactHeaderAndEnvTag(t *testing.T) {
	r := mustRedactor(t, testEnv(map[string]string{"GH": testSecret, "B": "bbbbbb"}), RedactEnv("GH", "B"))
	h := Header{Server: &Server{Command: []string{"srv", "--token=" + testSecret}}, Tags: map[string]string{EnvTag: "OLD"}}
	r.Header(&h)
	if got := h.Server.Command[1]; got != "--token=[redacted:env:GH]" {
		t.Errorf("command: got %q", got)
	}
	if got := EnvNames(h); !reflect.DeepEqual(got, []string{"OLD", "B", "GH"}) {
		t.Errorf("env names: got %v", got)
	}
}

func TestRestoreEnv(t *testing.T) {
	in := []byte(`{"a":"Bearer [redacted:env:GH]","b":"[redacted:env:NOPE] [redacted:env:NOPE]","c":"[redacted:env:bad name]"}`)
	out, missing := RestoreEnv(in, map[string]string{"GH": `x"y`})
	if got := string(out); got != `{"a":"Bearer x\"y","b":"[redacted:env:NOPE] [redacted:env:NOPE]","c":"[redacted:env:bad name]"}` {
		t.Errorf("got %s", got)
	}
	if !reflect.DeepEqual(missing, []string{"NOPE"}) {
		t.Errorf("missing: got %v", missing)
	}
	plain := []byte(`{"a":1}`)
	if out, _ := RestoreEnv(plain, nil); &out[0] != &plain[0] {
		t.Error("a message without markers was copied")
	}
}

func TestRedactRestoreRoundTrip(t *testing.T) {
	vals := map[string]string{"GH": testSecret}
	r := mustRedactor(t, testEnv(vals), RedactEnv("GH"))
	in := `{"params":{"arguments":{"q":"` + testSecret + `","r":"x\/` + strings.ReplaceAll(testSecret, "/", `\/`) + `"}}}`
	red := r.JSON([]byte(in))
	if how, found := testleak.Find(string(red), testSecret); found {
		t.Fatalf("secret left (%s): %s", how, red)
	}
	back, missing := RestoreEnv(red, vals)
	if len(missing) > 0 {
		t.Fatal(missing)
	}
	var a, b any
	if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal(back, &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("restored %s, want the value of %s", back, in)
	}
}

func TestMatchRedacted(t *testing.T) {
	tests := []struct {
		e, a          string
		marker, match bool
	}{
		{`"[redacted:key:string]"`, `"anything"`, true, true},
		{`"[redacted:key:string]"`, `12`, true, false},
		{`"[redacted:key:number]"`, `12.5`, true, true},
		{`"[redacted:key:object]"`, `{"a":1}`, true, true},
		{`"[redacted:key:array]"`, `{"a":1}`, true, false},
		{`"[redacted:header]"`, `"Bearer x"`, true, true},
		{`"Echo: [redacted:env:GH]!"`, `"Echo: ghp_1!"`, true, true},
		{`"Echo: [redacted:env:GH]!"`, `"Echo: ghp_1?"`, true, false},
		{`"[redacted:env:A]-[redacted:env:B]"`, `"x-y"`, true, true},
		{`"[redacted:env:A]-[redacted:env:B]"`, `"xy"`, true, false},
		{`"[redacted:env:GH]"`, `5`, true, false},
		{`"plain"`, `"plain"`, false, false},
		{`"[redacted:nothing]"`, `"x"`, false, false},
		// JSON text in a string, redacted inside
		{`"{\"user\":\"bob\",\"password\":\"[redacted:key:string]\"}"`, `"{\"password\":\"pw\", \"user\":\"bob\"}"`, true, true},
		{`"{\"user\":\"bob\",\"password\":\"[redacted:key:string]\"}"`, `"{\"user\":\"ann\",\"password\":\"pw\"}"`, true, false},
		{`"{\"user\":\"bob\",\"password\":\"[redacted:key:string]\"}"`, `"{\"user\":\"bob\",\"password\":7}"`, true, false},
		{`"[{\"n\":1.50,\"token\":\"[redacted:key:object]\"}]"`, `"[{\"n\":1.50,\"token\":{}}]"`, true, true},
		{`"[{\"n\":1.50,\"token\":\"[redacted:key:object]\"}]"`, `"not json"`, true, false},
	}
	for _, tt := range tests {
		m, ok := MatchRedacted([]byte(tt.e), []byte(tt.a))
		if m != tt.marker || ok != tt.match {
			t.Errorf("MatchRedacted(%s, %s) = %v, %v; want %v, %v", tt.e, tt.a, m, ok, tt.marker, tt.match)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"*token*", "accesstoken", true},
		{"*token*", "token", true},
		{"*token*", "tokenvalue", true},
		{"*token*", "toke", false},
		{"*apikey", "xgoogapikey", true},
		{"*apikey", "apikeyid", false},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbYcZ", false},
		{"password", "password", true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.glob, []byte(tt.name)); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.glob, tt.name, got, tt.want)
		}
	}
}

// FuzzRedact: a redacted message is still valid JSON of the same shape
// (the same paths, each of the same type or a string marker), and
// redacting again changes nothing.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		`{"params":{"arguments":{"password":"x","n":[1,{"token":{"a":2}}]}}}`,
		`{"a":"ghp_S3cr3t\/Value+42","b":["\u0067hp_S3cr3t/Value+42"]}`,
		`{"text":"{\"k\":\"ghp_S3cr3t/Value+42\"}","secret":-1.5e3}`,
		`[1,"x",{"api_key":null}]`,
	} {
		f.Add([]byte(s))
	}
	r := mustRedactor(f, testEnv(map[string]string{"GH": testSecret}), RedactEnv("GH"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		out := r.JSON(doc)
		if !json.Valid(out) {
			t.Fatalf("redacted %s into invalid JSON %s", doc, out)
		}
		var a, b any
		_ = json.Unmarshal(doc, &a)
		_ = json.Unmarshal(out, &b)
		sameShape(t, "$", a, b)
		if again := r.JSON(out); string(again) != string(out) {
			t.Fatalf("not idempotent: %s then %s", out, again)
		}
	})
}

func sameShape(t *testing.T, path string, a, b any) {
	t.Helper()
	if s, ok := b.(string); ok && strings.HasPrefix(s, "[redacted:key:") {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(bv) != len(av) {
			// An env value in a key may merge two keys into one marker.
			if ok && len(bv) < len(av) {
				return
			}
			t.Fatalf("%s: %T %v became %T %v", path, a, a, b, b)
		}
		for k, v := range av {
			if w, ok := bv[k]; ok {
				sameShape(t, path+"."+k, v, w)
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(bv) != len(av) {
			t.Fatalf("%s: %v became %v", path, a, b)
		}
		for i := range av {
			sameShape(t, path, av[i], bv[i])
		}
	default:
		if reflect.TypeOf(a) != reflect.TypeOf(b) {
			t.Fatalf("%s: %T became %T", path, a, b)
		}
	}
}

// FuzzUnquote: unquoteInto decodes as encoding/json does.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"\u00e9\ud83d\ude00\/\n"`, `"\ud800x"`, `"\ud83d\u0041"`, `"\uDFFF"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		var want string
		if json.Unmarshal([]byte(q), &want) != nil {
			return
		}
		q = strings.Trim(q, " \t\r\n")
		if len(q) < 2 || q[0] != '"' {
			return
		}
		got, ok := unquoteInto(nil, []byte(q[1:len(q)-1]))
		if !ok || string(got) != want {
			t.Fatalf("unquoteInto(%s) = %q, %v; want %q", q, got, ok, want)
		}
	})
}
