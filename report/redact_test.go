package report

import (
	"bytes"
	"testing"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor([]string{"s3cr<t\"x", "", "tok"})
	in := `a s3cr<t"x b s3cr<t\"x c s3cr&lt;t&#34;x d tok e`
	want := `a [redacted] b [redacted] c [redacted] d [redacted] e`
	if got := string(r.Bytes([]byte(in))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if _, err := r.Writer(&buf).Write([]byte("log tok line")); err != nil || buf.String() != "log [redacted] line" {
		t.Errorf("writer: got %q, %v", buf.String(), err)
	}
	var none *Redactor = NewRedactor(nil)
	if none != nil || string(none.Bytes([]byte("tok"))) != "tok" {
		t.Errorf("no secrets: want a nil redactor that changes nothing")
	}
}
