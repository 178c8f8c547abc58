package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendString: the string writer agrees with encoding/json
// (without HTML escaping).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s\n\t\r\x01", "é\u2028\u2029", "\xff\xfe<&>", "\b\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		html, err := json.Marshal(s) // HTML escaping on: AppendHTMLString
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendHTMLString(nil, s); !bytes.Equal(got, html) {
			t.Fatalf("AppendHTMLString(%q) = %s, want %s", s, got, html)
		}
	})
}
