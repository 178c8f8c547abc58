package testleak

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"testing"
)

// The oracle must see the secret in every form a writer gives it, or the
// redaction tests that use it prove nothing.
func TestFindsEveryForm(t *testing.T) {
	const secret = `Tk/+é"<&>\😀 z`
	jsonOf := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var tmpl bytes.Buffer
	template.Must(template.New("").Parse(`<td>{{.}}</td>`)).Execute(&tmpl, jsonOf(secret))
	var x bytes.Buffer
	xml.EscapeText(&x, []byte("got "+jsonOf(secret)))
	tests := []struct{ name, out string }{
		{"raw", "a " + secret + " b"},
		{"json", jsonOf(secret)},
		{"json in json", jsonOf(`{"v":` + jsonOf(secret) + `}`)},
		{"go %q", fmt.Sprintf("error %q", secret)},
		{"go %q of json", fmt.Sprintf("error %q", jsonOf(secret))},
		{"html of json", tmpl.String()},
		{"xml of json", x.String()},
		{"url", "http://h/?k=" + url.QueryEscape(strings.ReplaceAll(secret, " ", "_"))},
		{"all escaped", `"\u0054\u006b\/\u002b\u00E9\"\u003c\u0026\u003e\\\ud83d\ude00 z"`},
		{"base64 at 1", base64.StdEncoding.EncodeToString([]byte("x" + secret + "yy"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := secret
			if tc.name == "url" {
				want = strings.ReplaceAll(secret, " ", "_")
			}
			if _, ok := Find(tc.out, want); !ok {
				t.Errorf("not found in %s", tc.out)
			}
		})
	}
	if how, ok := Find(`{"v":"[redacted]"} Tk/ z`, secret); ok {
		t.Errorf("found (%s) where it is not", how)
	}
}
