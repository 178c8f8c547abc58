package tape

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCheckLines(t *testing.T) {
	const header = `{"type":"header","format":"replayctl-tape","version":1}` + "\n"
	seq := 0
	line := func(n int) string { // a message line of n bytes, and its newline
		seq++
		const form = `{"type":"message","seq":%d,"t_us":0,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"t":"%s"}}}`
		text := strings.Repeat("x", n-len(fmt.Sprintf(form, seq, "")))
		return fmt.Sprintf(form, seq, text) + "\n"
	}
	const limit = 1000
	short := func() string { return line(200) }
	shorts := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(short())
		}
		return b.String()
	}
	atLimit := func() string { return line(limit) }
	over := func() string { return line(limit + 1) }
	huge := func() string { return line(3 * (256 << 10)) } // across reads
	for _, tc := range []struct {
		name string
		tape string
		line int64 // 0: no error
	}{
		{"short", header + shorts(2), 0},
		{"at the limit", header + short() + atLimit() + short(), 0},
		{"at the limit, last line, no newline", header + short() + strings.TrimSuffix(atLimit(), "\n"), 0},
		{"one over", header + short() + over() + short(), 3},
		{"one over, last line, no newline", header + short() + strings.TrimSuffix(over(), "\n"), 3},
		{"huge, far down", header + shorts(1000) + huge(), 1002},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLines(Bytes("t.jsonl", []byte(tc.tape)), WithMaxLine(limit))
			var te *Error
			switch {
			case tc.line == 0 && err != nil:
				t.Fatalf("got %v, want nil", err)
			case tc.line == 0:
			case !errors.As(err, &te) || !errors.Is(err, ErrLineTooLong) || te.Line != tc.line:
				t.Fatalf("got %v, want ErrLineTooLong at line %d", err, tc.line)
			}
			if tc.line == 0 {
				return
			}
			// The reader says the same, once it gets there.
			r, err := OpenSource(Bytes("t.jsonl", []byte(tc.tape)), WithMaxLine(limit))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for err == nil {
				_, err = r.Next()
			}
			if err.Error() != te.Error() {
				t.Errorf("the reader says %q, CheckLines %q", err, te)
			}
		})
	}
}

// A tape of another format is not checked here: its lines are not the
// tape's lines.
func TestCheckLinesImport(t *testing.T) {
	doc := `{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[]}}`
	if err := CheckLines(Bytes("t.har", []byte(doc)), WithMaxLine(10)); err != nil {
		t.Errorf("got %v, want nil for a HAR file", err)
	}
}
