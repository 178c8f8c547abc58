package tape

import (
	"bytes"
	"net/url"
	"os"
	"reflect"
	"testing"
)

func TestMaskURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000/mcp"},
		{"http://user:PASS@h/mcp?api_key=KEY", "http://user:redacted@h/mcp?api_key=redacted"},
		{"https://TOKEN@github.com/x", "https://redacted@github.com/x"},
		{"http://h/mcp?a=1&key=K&token=T;sig=S&X-Amz-Signature=Z&X-Amz-Credential=C&keep=2",
			"http://h/mcp?a=1&key=redacted&token=redacted;sig=redacted&X-Amz-Signature=redacted&X-Amz-Credential=redacted&keep=2"},
		{"http://h/cb#access_token=T&state=s", "http://h/cb#access_token=redacted&state=s"},
		{"http://h/?api%5Fkey=K&empty=&password=", "http://h/?api%5Fkey=redacted&empty=&password="},
		{"http://u:p@h", "http://u:redacted@h"},
		{"not a url", "not a url"},
		{"", ""},
	}
	for _, tc := range tests {
		got := MaskURL(tc.in)
		if got != tc.want {
			t.Errorf("MaskURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if _, err := url.Parse(tc.in); err == nil {
			if _, err := url.Parse(got); err != nil {
				t.Errorf("MaskURL(%q) = %q, which does not parse: %v", tc.in, got, err)
			}
		}
	}
}

func TestMaskURLs(t *testing.T) {
	tests := []struct{ in, want string }{
		{`Post "http://alice:***@127.0.0.1:1/mcp?api_key=KEY": dial tcp: refused`,
			`Post "http://alice:redacted@127.0.0.1:1/mcp?api_key=redacted": dial tcp: refused`},
		{"two: http://a:b@x/ and https://y/?token=t.", "two: http://a:redacted@x/ and https://y/?token=redacted."},
		{`GET http://u:p@h/?key=k: refused`, `GET http://u:redacted@h/?key=redacted: refused`},
		{"no url here: a://", "no url here: a://"},
		{"://x", "://x"},
		{`{"url":"http://u:p@h/"}`, `{"url":"http://u:redacted@h/"}`},
	}
	for _, tc := range tests {
		if got := MaskURLs(tc.in); got != tc.want {
			t.Errorf("MaskURLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMaskJSONInString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"object", `{"args":{"doc":"{\"user\":\"bob\",\"password\":\"pw\"}"}}`,
			`{"args":{"doc":"{\"user\":\"bob\",\"password\":\"[redacted]\"}"}}`},
		{"array, white space and escapes kept", `{"text":"\n[ {\"api_key\": \"k\", \"note\": \"caf\u00e9\"} ]"}`,
			`{"text":"\n[ {\"api_key\": \"[redacted]\", \"note\": \"café\"} ]"}`},
		{"twice inside", `{"a":"{\"b\":\"{\\\"token\\\":\\\"t\\\"}\"}"}`, `{"a":"{\"b\":\"{\\\"token\\\":\\\"[redacted]\\\"}\"}"}`},
		{"not JSON", `{"a":"{password: x}"}`, `{"a":"{password: x}"}`},
		{"no secret", `{"a":"{\"user\":\"bob\"}"}`, `{"a":"{\"user\":\"bob\"}"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Mask([]byte(tc.in))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	r, err := NewRedactor()
	if err != nil {
		t.Fatal(err)
	}
	in := `{"doc":"{\"user\":\"bob\",\"pwd\":\"pw\",\"n\":1}"}`
	want := `{"doc":"{\"user\":\"bob\",\"pwd\":\"[redacted:key:string]\",\"n\":1}"}`
	if got := string(r.JSON([]byte(in))); got != want {
		t.Errorf("recording: got %s, want %s", got, want)
	}
	if n := r.Counts().Keys["pwd"]; n != 1 {
		t.Errorf("counted %d pwd, want 1", n)
	}
}

func TestMaskHTTP(t *testing.T) {
	m := &HTTPMeta{Status: 200, Headers: map[string][]string{"Authorization": {"Bearer x"}, "Mcp-Session-Id": {"s"}}}
	got := MaskHTTP(m)
	want := &HTTPMeta{Status: 200, Headers: map[string][]string{"Mcp-Session-Id": {"s"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if len(m.Headers) != 2 {
		t.Errorf("MaskHTTP changed its argument")
	}
	if plain := (&HTTPMeta{Status: 202}); MaskHTTP(plain) != plain {
		t.Errorf("nothing to mask: want the same metadata back")
	}
	if got := MaskHTTP(&HTTPMeta{Headers: map[string][]string{"Cookie": {"a"}}}); got.Headers != nil {
		t.Errorf("only credentials: got headers %v, want none", got.Headers)
	}
}

func TestMaskHeader(t *testing.T) {
	h := Header{Server: &Server{URL: "http://u:p@h/mcp?key=k", Command: []string{"srv", "--url=http://h/?token=t"}},
		Tags: map[string]string{"from": "https://a:b@x/"}}
	got := MaskHeader(h)
	if got.Server.URL != "http://u:redacted@h/mcp?key=redacted" || got.Server.Command[1] != "--url=http://h/?token=redacted" ||
		got.Tags["from"] != "https://a:redacted@x/" {
		t.Errorf("got %+v %+v", got.Server, got.Tags)
	}
	if h.Server.URL != "http://u:p@h/mcp?key=k" || h.Server.Command[1] != "--url=http://h/?token=t" || h.Tags["from"] != "https://a:b@x/" {
		t.Errorf("MaskHeader changed its argument")
	}
}

// TestHARHoldsNoSecret: a tape whose header and message lines carry
// credentials (a URL's password, a credential header, unknown members
// under secret names) exports a HAR that holds none of them, and its
// import holds none either.
func TestHARHoldsNoSecret(t *testing.T) {
	lines := `{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http","server":{"url":"http://u:hdr-pw-1@h/mcp?token=hdr-tok-2"},"x_token":"hdr-x-3"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"},"http":{"headers":{"Authorization":["Bearer msg-auth-4"],"Mcp-Protocol-Version":["2025-06-18"]}},"x_meta":{"secret":"msg-x-5","keep":1}}
{"type":"message","seq":1,"t_us":5,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}},"http":{"status":200,"headers":{"Set-Cookie":["sid=msg-cookie-6"]}},"api_key":"msg-key-7"}
{"type":"end","messages":2,"duration_us":5}
`
	path := t.TempDir() + "/t.jsonl"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := EncodeHAR(&b, r, "test"); err != nil {
		t.Fatal(err)
	}
	h, msgs, _, err := DecodeHAR("t.har", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	w, err := NewWriter(&back, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	secrets := []string{"hdr-pw-1", "hdr-tok-2", "hdr-x-3", "msg-auth-4", "msg-x-5", "msg-cookie-6", "msg-key-7"}
	for _, s := range secrets {
		if bytes.Contains(b.Bytes(), []byte(s)) {
			t.Errorf("the HAR holds %s", s)
		}
		if bytes.Contains(back.Bytes(), []byte(s)) {
			t.Errorf("its import holds %s", s)
		}
	}
	for _, keep := range []string{"Mcp-Protocol-Version", `\"keep\":1`} {
		if !bytes.Contains(b.Bytes(), []byte(keep)) {
			t.Errorf("the HAR lost %s:\n%s", keep, b.Bytes())
		}
	}
}
