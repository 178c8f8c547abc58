package tape

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/replayctl/replayctl/internal/testos"
)

// fifoWith makes a FIFO in dir and writes b into it once a reader opens
// it; wait waits for the writer.
func fifoWith(t *testing.T, dir string, b []byte) (path string, wait func()) {
	t.Helper()
	path = filepath.Join(dir, "tape.fifo")
	testos.Mkfifo(t, path)
	var wg sync.WaitGroup
	wg.Go(func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Errorf("open the FIFO to write: %v", err)
			return
		}
		defer f.Close()
		f.Write(b) // a reader that gave up early makes this fail: fine
	})
	return path, wg.Wait
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	body := []byte(hdr + msgLine(0, 0, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) +
		msgLine(1, 10, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`) +
		msgLine(2, 20, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	file := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("regular file", func(t *testing.T) {
		src, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := src.(File); !ok {
			t.Errorf("got %T, want File: a regular file is read from the disk", src)
		}
	})

	t.Run("FIFO, opened twice", func(t *testing.T) {
		fifo, wait := fifoWith(t, t.TempDir(), body)
		src, err := Load(fifo)
		wait()
		if err != nil {
			t.Fatal(err)
		}
		if src.Name() != fifo {
			t.Errorf("name %q, want %q", src.Name(), fifo)
		}
		for i := range 2 { // a replay opens its tape more than once
			r, err := OpenSource(src)
			if err != nil {
				t.Fatalf("open %d: %v", i+1, err)
			}
			n, err := drain(r)
			r.Close()
			if err != nil {
				t.Fatalf("open %d: %v", i+1, err)
			}
			if n != 3 {
				t.Errorf("open %d: %d messages, want 3", i+1, n)
			}
		}
	})

	t.Run("FIFO over the limit", func(t *testing.T) {
		fifo, wait := fifoWith(t, t.TempDir(), body)
		_, err := load(fifo, 100)
		wait()
		var te *Error
		if !errors.As(err, &te) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "limit of 100 bytes") || !strings.Contains(err.Error(), fifo) {
			t.Errorf("got %v, want an *Error wrapping ErrTooLarge naming %s and the limit", err, fifo)
		}
	})

	t.Run("folder", func(t *testing.T) {
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "folder") {
			t.Errorf("got %v, want an error saying it is a folder", err)
		}
		// inspect, serve, export and diff open a File without Load: they
		// said "line 1: cannot read it (read DIR: is a directory): check
		// the file and the disk".
		var te *Error
		if _, err := Open(dir); !errors.As(err, &te) || te.Line != 0 || !strings.Contains(err.Error(), "it is a folder, not a tape") {
			t.Errorf("Open: got %v, want the *Error saying it is a folder", err)
		}
	})

	t.Run("missing", func(t *testing.T) {
		var te *Error
		if _, err := Load(filepath.Join(dir, "nope.jsonl")); !errors.As(err, &te) {
			t.Errorf("got %v, want an *Error", err)
		}
	})
}

func TestSizeName(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{MaxInMemory, "256 MiB"}, {4 << 10, "4 KiB"}, {100, "100 bytes"}, {(1 << 20) + 1, "1048577 bytes"},
	} {
		if got := sizeName(tt.n); got != tt.want {
			t.Errorf("sizeName(%d): got %q, want %q", tt.n, got, tt.want)
		}
	}
}
