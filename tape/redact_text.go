package tape

import (
	"bytes"
	"encoding/base64"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// The Redactor's second half: secrets known by value (RedactorOf),
// hidden from any text replayctl writes, whatever escaping it carries.

// minCut is the shortest start of a secret redacted before a "…".
const minCut = 4

// minBase64 is the shortest base64 core of a secret that is looked for.
const minBase64 = 6

// MinTextSecretLen is the shortest secret RedactorOf looks for inside
// other text. A shorter one ("x", "ab") would be found in every other
// word of a report, so it is hidden only where it is a whole quoted
// string ("x" in JSON, at any depth of escaping); its base64 forms and
// cut starts are not looked for. Callers say so (ShortSecret), naming
// the variable, never the value. Three bytes, not more: a secret of
// three bytes or more ("tok") is still hidden inside any text, as the
// outputs' tests ask.
const MinTextSecretLen = 3

// ShortSecret reports whether RedactorOf hides s only as a whole quoted
// string (shorter than MinTextSecretLen).
func ShortSecret(s string) bool { return s != "" && len(s) < MinTextSecretLen }

// ellipsis marks a value cut short in every output.
var ellipsis = []byte("…")

// RedactorOf returns a Redactor that hides the values secrets in the
// text it is given (Bytes, String, Writer), in every form an output of
// replayctl can give them:
//
//   - as they are;
//   - escaped by any writer of JSON, JavaScript or Go strings (\" \\ \/
//     \n \u00e9 \u002B \uD83D\uDE00 \x2b \U0001F600), whichever characters
//     it chose to escape;
//   - as HTML or XML character references (&#43; &#x2B; &amp; &quot;), as
//     html/template and encoding/xml write them;
//   - URL-encoded (%2B, and + for a space in a query);
//   - up to three of those layers deep, in any order: a JSON answer quoted
//     in an error message in a JSON log line, a JSON value in the HTML
//     report;
//   - as the lossy writers of the reports leave them: invalid UTF-8 as
//     U+FFFD (encoding/json), characters XML cannot hold as U+FFFD
//     (JUnit), control characters as ' ' (debugger; the text report
//     escapes them as \x01, a backslash escape);
//   - base64-encoded at any alignment (the part of the encoding that
//     depends on the secret alone), as MCP carries binary (resource blobs,
//     images) and HTTP Basic credentials, for secrets of 5 bytes or more;
//   - cut short: at least 4 leading bytes of a secret right before the "…"
//     that marks a cut value.
//
// A secret shorter than MinTextSecretLen is hidden only as a whole quoted
// string, in each of those escapings.
//
// Its JSON redaction (JSON, Message) uses the policy's names. It is nil
// when there are no secrets; a nil Redactor's Bytes, String and Writer
// change nothing.
func RedactorOf(secrets []string) *Redactor {
	var forms, whole []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		valid := perByteValid(s)
		if ShortSecret(s) {
			whole = append(whole, s, valid)
			continue
		}
		forms = append(forms, s, valid,
			strings.Map(func(r rune) rune { // the debugger's one-line form
				if r < 0x20 {
					return ' '
				}
				return r
			}, valid),
			strings.Map(func(r rune) rune { // encoding/xml
				if !xmlChar(r) {
					return utf8.RuneError
				}
				return r
			}, valid))
		forms = append(forms, base64Cores(s)...)
	}
	slices.Sort(forms)
	forms = slices.Compact(forms)
	slices.Sort(whole)
	whole = slices.Compact(whole)
	if len(forms) == 0 && len(whole) == 0 {
		return nil
	}
	r := &Redactor{defaults: true, families: []*family{&backslashEscapes, &entityEscapes, &percentEscapes}}
	spaced := false
	for _, f := range forms {
		if f != "" {
			r.forms = append(r.forms, []byte(f))
			spaced = spaced || strings.Contains(f, " ")
		}
	}
	for _, f := range whole {
		r.whole = append(r.whole, []byte(f))
		spaced = spaced || strings.Contains(f, " ")
	}
	if spaced {
		r.families = append(r.families, &queryEscapes)
	}
	return r
}

// perByteValid is s with each byte that is not UTF-8 replaced by U+FFFD,
// as encoding/json writes it.
func perByteValid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // RuneError for a bad byte
		i += n
	}
	return b.String()
}

// xmlChar reports whether XML 1.0 can hold r (encoding/xml writes U+FFFD
// for any other).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// base64Cores are the parts of s's base64 encodings (standard and URL
// alphabets) that depend on s alone, at each of the three alignments s can
// have in an encoded stream.
func base64Cores(s string) []string {
	var cores []string
	for o := range 3 {
		buf := make([]byte, o+len(s))
		copy(buf[o:], s)
		enc := base64.StdEncoding.EncodeToString(buf)
		start, end := (o*8+5)/6, (o+len(s))*8/6
		if end-start < minBase64 {
			continue
		}
		core := enc[start:end]
		cores = append(cores, core, strings.NewReplacer("+", "-", "/", "_").Replace(core))
	}
	return cores
}

// Bytes returns b with every secret replaced; b itself when there is none.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || len(b) == 0 {
		return b
	}
	spans := r.find(b)
	if len(spans) == 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	done := 0
	for _, s := range spans {
		out = append(append(out, b[done:s.from]...), Masked...)
		done = s.to
	}
	return append(out, b[done:]...)
}

// String is Bytes for a string.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	b := []byte(s)
	if out := r.Bytes(b); !sameBytes(out, b) {
		return string(out)
	}
	return s
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

// sameBytes reports whether a and b are the same bytes in memory, as
// Bytes returns its argument when it redacts nothing.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// textSpan is a part of the redacted text: b[from:to].
type textSpan struct{ from, to int }

// find returns where the secrets are in b, in order, overlapping spans
// merged.
func (r *Redactor) find(b []byte) []textSpan {
	var spans []textSpan
	root := &view{text: b}
	r.search(root, func(from, to int) { spans = append(spans, textSpan{from, to}) })
	var walk func(v *view, depth int)
	walk = func(v *view, depth int) {
		if depth == maxDepth {
			return
		}
		for _, f := range r.families {
			if bytes.IndexAny(v.text, f.triggers) < 0 {
				continue
			}
			child, ok := decode(f, v)
			if !ok {
				continue
			}
			r.search(child, func(from, to int) {
				from, to = child.toRoot(from, to)
				spans = append(spans, textSpan{from, to})
			})
			walk(child, depth+1)
		}
	}
	walk(root, 0)
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b textSpan) int { return a.from - b.from })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.from <= last.to {
			last.to = max(last.to, s.to)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// search reports each place in v's text where a form of a secret is,
// where a short secret is a whole quoted string, and where the start of
// a secret stands right before a "…".
func (r *Redactor) search(v *view, found func(from, to int)) {
	text := v.text
	for _, f := range r.forms {
		for i := 0; ; {
			k := bytes.Index(text[i:], f)
			if k < 0 {
				break
			}
			found(i+k, i+k+len(f))
			i += k + 1
		}
	}
	for _, f := range r.whole {
		for i := 0; ; {
			k := bytes.Index(text[i:], f)
			if k < 0 {
				break
			}
			from, to := i+k, i+k+len(f)
			if from > 0 && to < len(text) && text[from-1] == '"' && text[to] == '"' {
				found(from, to)
			}
			i = from + 1
		}
	}
	for i := 0; ; {
		k := bytes.Index(text[i:], ellipsis)
		if k < 0 {
			return
		}
		at := i + k
		for _, f := range r.forms {
			if n := cutPrefix(text[:at], f); n > 0 {
				found(at-n, at)
			}
		}
		i = at + len(ellipsis)
	}
}

// cutPrefix is the length of the longest start of f, minCut bytes or
// more but not all of f, that text ends with; 0 when there is none.
func cutPrefix(text, f []byte) int {
	for n := min(len(f)-1, len(text)); n >= minCut; n-- {
		if text[len(text)-1] == f[n-1] && bytes.Equal(text[len(text)-n:], f[:n]) {
			return n
		}
	}
	return 0
}
