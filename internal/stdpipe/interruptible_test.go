package stdpipe

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInterruptible: pipes, io.Pipe, a net.Conn and regular files can be
// interrupted; a terminal as a process inherits it (blocking), a reader
// without Close and a Closer of unknown type (its Close may not end a
// read in progress) cannot.
func TestInterruptible(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	reg, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	ipr, ipw := io.Pipe()
	defer ipw.Close()
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	cases := []struct {
		name string
		r    io.Reader
		want bool
	}{
		{"os.Pipe", pr, true},
		{"regular file", reg, true},
		{"io.Pipe", ipr, true},
		{"strings.Reader (no Close)", strings.NewReader("x"), false},
		{"a reader hiding its Close", struct{ io.Reader }{ipr}, false},
		{"net.Conn", c1, true},
		{"a Closer of unknown type", io.NopCloser(strings.NewReader("x")), false},
	}
	if term, _ := terminal(t); term != nil {
		cases = append(cases, struct {
			name string
			r    io.Reader
			want bool
		}{"terminal", term, false})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Interruptible(c.r); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
