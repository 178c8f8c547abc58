package calls_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testtape/calls"
	"github.com/replayctl/replayctl/tape"
)

// TestTapeReads: the tape written reads back through tape.Open with no
// warning, as its shape says: the handshake, then each call at its
// recorded time with its answer 0.1 ms later, in seq order, and the end
// line's count and duration.
func TestTapeReads(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tp        calls.Tape
		firstUS   int64 // call 1
		gapUS     int64
		transport string
		text      func(i int) string
	}{
		{"defaults", calls.Tape{N: 5}, 1000, 1000, "stdio", func(i int) string { return fmt.Sprintf("Echo: message %d", i) }},
		{"start and gap", calls.Tape{N: 4, Gap: 2 * time.Millisecond, Start: 10 * time.Millisecond, Transport: "http", Answer: strconv.Itoa},
			10000, 2000, "http", strconv.Itoa},
		{"quoted answer", calls.Tape{N: 2, Answer: func(i int) string { return `say "hi"` + "\n" }},
			1000, 1000, "stdio", func(int) string { return `say "hi"` + "\n" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "calls.jsonl")
			if err := tc.tp.Write(path); err != nil {
				t.Fatal(err)
			}
			r, err := tape.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := r.Header().Transport; got != tc.transport {
				t.Errorf("transport %q, want %q", got, tc.transport)
			}
			var n int
			for ; ; n++ {
				m, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if m.Seq != int64(n) {
					t.Fatalf("message %d has seq %d", n, m.Seq)
				}
				if n < 3 {
					continue
				}
				i := (n-3)/2 + 1 // the call
				at := tc.firstUS + int64(i-1)*tc.gapUS
				rpc, err := m.RPC()
				if err != nil {
					t.Fatal(err)
				}
				if id := string(rpc.ID); id != strconv.Itoa(i) {
					t.Errorf("seq %d: id %s, want %d", n, id, i)
				}
				if n%2 == 1 { // call
					if m.Dir != tape.C2S || m.TUS != at || rpc.Method != "tools/call" {
						t.Errorf("seq %d: %s %s at %dµs, want c2s tools/call at %d", n, m.Dir, rpc.Method, m.TUS, at)
					}
					continue
				}
				want := fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, tc.text(i))
				if m.Dir != tape.S2C || m.TUS != at+100 || string(rpc.Result()) != want {
					t.Errorf("seq %d: %s at %dµs result %s, want s2c at %d result %s", n, m.Dir, m.TUS, rpc.Result(), at+100, want)
				}
			}
			if n != tc.tp.Messages() {
				t.Errorf("read %d messages, want %d", n, tc.tp.Messages())
			}
			last := tc.firstUS + int64(tc.tp.N-1)*tc.gapUS + 100
			if end := r.End(); end == nil || end.Messages != int64(n) || end.DurationUS != last {
				t.Errorf("end %+v, want %d messages over %dµs", end, n, last)
			}
			if w := r.Warnings(); len(w) > 0 {
				t.Errorf("warnings: %q", w)
			}
		})
	}
}

// TestWriteReplaces: Write replaces the file there, leaving no temporary
// file beside it.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "calls.jsonl")
	if err := os.WriteFile(path, []byte("old and longer than nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (calls.Tape{N: 1}).Write(path); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the tape alone", len(entries))
	}
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := (calls.Tape{N: 1}).Write(filepath.Join(dir, "no", "such", "folder", "t.jsonl")); err == nil {
		t.Error("Write into a missing folder succeeded, want an error")
	}
}
