package mock

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/replayctl/replayctl/tape"
)

// TestReadBackFromTheFile runs the tests of answers, notifications and
// rewinds with every native tape's answers read back from its file, as a
// large tape's are.
func TestReadBackFromTheFile(t *testing.T) {
	readBack(t)
	path := testTapeFile(t)
	idx, err := readIndex(tape.File(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	if idx.file == nil || idx.mem.len() != 0 {
		t.Fatal("the index keeps the answers in memory, want them read back from the file")
	}
	idx.file.Close()
	for name, test := range map[string]func(*testing.T){
		"AnswersByMethodAndParamsInOrder": TestAnswersByMethodAndParamsInOrder,
		"ManyAnswersQueueWithoutBlocking": TestManyAnswersQueueWithoutBlocking,
		"RewindAnswersAgain":              TestRewindAnswersAgain,
		"RewindAnswersFromSeqOn":          TestRewindAnswersFromSeqOn,
		"VirtualCopies":                   TestVirtualCopiesAnswerAsTheRecordedSession,
		"ManySessionsReadTheTapeOnce":     TestManySessionsReadTheTapeOnce,
	} {
		t.Run(name, test)
	}
}

// TestReadBackNoticesAChangedTape answers with an error, not with another
// message, when the tape's lines have moved since it was indexed.
func TestReadBackNoticesAChangedTape(t *testing.T) {
	readBack(t)
	path := testTapeFile(t)
	idx, err := readIndex(tape.File(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.file.Close()
	// Shift every line by a byte, in place.
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(" "+testTape), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	e := idx.sessions["s1"][0]
	var buf []byte
	if msg, err := idx.at(e.ans, -1, &buf); err == nil {
		t.Fatalf("read %s from a changed tape, want an error", msg)
	}
}

func TestReadBackSendsTheNotificationsFirst(t *testing.T) {
	readBack(t)
	path := writeTape(t, []line{
		{"s1", tape.S2C, noteA}, {"s1", tape.C2S, req1}, {"s1", tape.S2C, noteB}, {"s1", tape.S2C, ans1},
		{"s1", tape.C2S, req2}, {"s1", tape.S2C, ans2},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := New(path).Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, req := range []string{req1, req2} {
		if err := c.Send(ctx, []byte(req)); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []string{noteA, noteB, ans1, ans2} {
		select {
		case in := <-c.Incoming():
			if string(in.Msg) != want {
				t.Errorf("message %d: got %s, want %s", i, in.Msg, want)
			}
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
}

func TestLocKeepsLongAndFarMessages(t *testing.T) {
	var b builder
	for _, sp := range []span{{0, 1}, {123, 456}, {1 << 39, locBig - 1}, {7, locBig}, {9, 1 << 30}, {1 << 40, 5}, {1<<(64-locBits) - 1, 3}} {
		l := b.loc(sp.off, sp.n)
		idx := index{big: b.big}
		if l == 0 || idx.span(l) != sp {
			t.Errorf("%+v: loc %#x gives %+v", sp, l, idx.span(l))
		}
	}
}

// readBack makes every native tape's answers be read back from its file
// until the test ends, as a large tape's are.
func readBack(t *testing.T) {
	saved := readBackOver
	readBackOver = -1
	t.Cleanup(func() { readBackOver = saved })
}

// testTapeFile writes testTape to a file and returns its path.
func testTapeFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(testTape), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
