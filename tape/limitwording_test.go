package tape

import (
	"errors"
	"strings"
	"testing"
)

// TestLimitWording: a limit of one byte is "1 byte", not "1 bytes", in
// every error that prints a tape's limit; a limit of a whole number of
// KiB or MiB is said in it.
func TestLimitWording(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{1, "1 byte"}, {2, "2 bytes"}, {0, "0 bytes"}, {8 << 20, "8 MiB"}} {
		if got := sizeName(tc.n); got != tc.want {
			t.Errorf("sizeName(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	native := `{"type":"header","version":1}` + "\n"
	log := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	for _, tc := range []struct {
		name, file, doc string
		limit           int
		want            string
	}{
		{"a tape line", "t.jsonl", native, 1, "longer than the limit of 1 byte: "},
		{"a tape line of 2", "t.jsonl", native, 2, "longer than the limit of 2 bytes: "},
		{"a tape line of 1 KiB", "t.jsonl", `{"type":"header","version":1,"x":"` + strings.Repeat("y", 2000) + `"}` + "\n", 1 << 10, "longer than the limit of 1 KiB: "},
		{"a log line", "x.log", log + log, 1, "longer than the limit of 1 byte: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(writeTemp(t, tc.file, tc.doc), WithMaxLine(tc.limit))
			for err == nil {
				_, err = r.Next()
			}
			if r != nil {
				r.Close()
			}
			if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrLineTooLong saying %q", err, tc.want)
			}
		})
	}
}
