package report

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"strings"
)

// Redacted stands in for a secret value in any output.
const Redacted = "[redacted]"

// Redactor hides secret values (those a config took from the environment)
// in rendered output: as written, JSON-escaped and HTML-escaped. A nil
// Redactor changes nothing. It is safe for concurrent use.
type Redactor struct {
	r *strings.Replacer
}

// NewRedactor returns a Redactor for secrets; nil when there are none.
func NewRedactor(secrets []string) *Redactor {
	var pairs []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		forms := map[string]bool{s: true, html.EscapeString(s): true}
		if b, err := json.Marshal(s); err == nil { // escapes <, > and & too
			forms[string(b[1:len(b)-1])] = true
		}
		var plain bytes.Buffer
		enc := json.NewEncoder(&plain)
		enc.SetEscapeHTML(false)
		if enc.Encode(s) == nil { // "…"\n
			forms[string(plain.Bytes()[1:plain.Len()-2])] = true
		}
		for f := range forms {
			pairs = append(pairs, f, Redacted)
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// Bytes returns b with every secret replaced.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	return []byte(r.r.Replace(string(b)))
}

// Writer wraps w so that each Write is redacted before it goes on. A
// secret split across two Writes is not seen: wrap writers that write
// whole records (a log line, a rendered report).
func (r *Redactor) Writer(w io.Writer) io.Writer {
	if r == nil {
		return w
	}
	return redactWriter{r: r, w: w}
}

type redactWriter struct {
	r *Redactor
	w io.Writer
}

func (rw redactWriter) Write(p []byte) (int, error) {
	if _, err := rw.w.Write(rw.r.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
