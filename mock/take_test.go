package mock

import (
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// readAll reads src with a plain reader: every message and the
// reader's warnings.
func readAll(t *testing.T, src tape.Source) ([]tape.Message, []string) {
	t.Helper()
	r, err := tape.OpenSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var msgs []tape.Message
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return msgs, r.Warnings()
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
}

// countedFile is a tape file that counts its opens.
type countedFile struct {
	tape.File
	opens *atomic.Int64
}

func (f countedFile) Open() (io.ReadSeekCloser, error) {
	f.opens.Add(1)
	return f.File.Open()
}

// TestTakeTape: the mock hands over the tape it read, the same messages
// and warnings as a plain reader's, once; its index then answers from
// memory, even where a tape of its size is read back from its file. The
// tape is read once: its source is opened once for TakeTape, a second
// TakeTape, a Dial and an answer, and the file can be gone once
// TakeTape has returned.
func TestTakeTape(t *testing.T) {
	readBack(t)
	var opens atomic.Int64
	cases := map[string]func(path string) tape.Source{
		"file":    func(path string) tape.Source { return tape.File(path) },
		"shared":  func(path string) tape.Source { return tape.Share(tape.File(path)) },
		"counted": func(path string) tape.Source { return tape.Share(countedFile{File: tape.File(path), opens: &opens}) },
	}
	for name, newSource := range cases {
		t.Run(name, func(t *testing.T) {
			path := testTapeFile(t)
			want, wantWarnings := readAll(t, tape.File(path))
			opens.Store(0)
			src := newSource(path)
			m := FromSource(src)
			next, warnings, ok := m.TakeTape(src)
			if !ok {
				t.Fatal("TakeTape: not ok, want the tape's messages")
			}
			if err := os.Remove(path); err != nil { // what reads it after this fails
				t.Fatal(err)
			}
			var msgs []tape.Message
			for m, ok := next(); ok; m, ok = next() {
				msgs = append(msgs, m)
			}
			if !reflect.DeepEqual(msgs, want) || !reflect.DeepEqual(warnings, wantWarnings) {
				t.Errorf("TakeTape gave\n%+v %q\nwant (a plain reader's)\n%+v %q", msgs, warnings, want, wantWarnings)
			}
			if m.r.idx.file != nil {
				t.Error("the index reads its answers back from the file, want them in memory (the tape was read whole)")
			}
			if _, _, ok := m.TakeTape(src); ok {
				t.Error("a second TakeTape: ok, want the messages given once")
			}
			c, err := m.Dial(context.Background(), "s1")
			if err != nil {
				t.Fatalf("Dial after TakeTape, the tape's file removed: %v (want the index TakeTape built)", err)
			}
			defer c.Close()
			if err := c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)); err != nil {
				t.Fatal(err)
			}
			got := <-c.Incoming()
			if string(got.Msg) != `{"jsonrpc":"2.0","id":7,"result":{"sum":3}}` {
				t.Errorf("answer %s, want the recorded one with id 7", got.Msg)
			}
			if name == "counted" {
				if n := opens.Load(); n != 1 {
					t.Errorf("the tape was opened %d times, want 1", n)
				}
			}
		})
	}
}

// TestTakeTapeRefused: no messages for another tape, after the mock read
// its tape for a Dial, or for a tape larger than it keeps.
func TestTakeTapeRefused(t *testing.T) {
	path := testTapeFile(t)
	if _, _, ok := FromSource(tape.File(path)).TakeTape(tape.File(path + ".other")); ok {
		t.Error("another tape: ok, want not")
	}
	m := FromSource(tape.File(path))
	c, err := m.Dial(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, _, ok := m.TakeTape(tape.File(path)); ok {
		t.Error("after a Dial read the tape: ok, want not (the messages were not kept)")
	}
	saved := keepUpTo
	keepUpTo = 10
	t.Cleanup(func() { keepUpTo = saved })
	for name, src := range map[string]tape.Source{"file": tape.File(path), "bytes": tape.Share(tape.Bytes("t", []byte(testTape)))} {
		if _, _, ok := FromSource(src).TakeTape(src); ok {
			t.Errorf("%s larger than keepUpTo: ok, want not", name)
		}
	}
}
