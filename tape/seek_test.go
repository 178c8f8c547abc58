package tape

import (
	"errors"
	"strings"
	"testing"
)

func TestSeek(t *testing.T) {
	const n = 5000 // several index entries
	r, err := Open(writeTemp(t, "a.jsonl", tapeOf(n, 1, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	steps := []struct {
		name string
		seek int64
		err  bool
	}{
		{"forward unread", 3000, false},
		{"same again", 3000, false},
		{"forward near", 3002, false},
		{"backward", 10, false},
		{"first", 0, false},
		{"last", n - 1, false},
		{"backward across index", 1025, false},
		{"past last", n, true},
		{"negative", -1, true},
		{"far past", 1 << 40, true},
		{"exact index entry", 2048, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before, beforeErr := r.peekSeq(t)
			err := r.SeekSeq(st.seek)
			if st.err {
				if !errors.Is(err, ErrOutOfRange) {
					t.Fatalf("Seek(%d) = %v, want ErrOutOfRange", st.seek, err)
				}
				// The reader stays where it was.
				if after, afterErr := r.peekSeq(t); after != before || afterErr != beforeErr {
					t.Fatalf("after a failed seek the next seq is %d (eof %v), want %d (eof %v)", after, afterErr, before, beforeErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Seek(%d): %v", st.seek, err)
			}
			for want := st.seek; want < min(st.seek+3, n); want++ {
				m, err := r.Next()
				if err != nil || m.Seq != want || m.Line != want+2 {
					t.Fatalf("Next = seq %d line %d (%v), want seq %d line %d", m.Seq, m.Line, err, want, want+2)
				}
			}
		})
	}
	if got, want := len(r.native().index), (n+indexEvery-1)/indexEvery; got != want {
		t.Errorf("index has %d entries, want %d (one per %d messages)", got, want, indexEvery)
	}
}

// peekSeq returns the seq the next Next would return (-1 at the end) by
// reading it and seeking back.
func (r *Reader) peekSeq(t *testing.T) (int64, bool) {
	t.Helper()
	m, err := r.Next()
	if err != nil {
		return -1, true
	}
	if err := r.SeekSeq(m.Seq); err != nil {
		t.Fatalf("seek back to %d: %v", m.Seq, err)
	}
	return m.Seq, false
}

func TestSeekGapsAndStart(t *testing.T) {
	r, err := Open(writeTemp(t, "a.jsonl", strings.Replace(tapeOf(3000, 10, true), `"seq":0,`, `"seq":5,`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Nothing read yet: a seq before the first message is out of range.
	if err := r.SeekSeq(2); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("Seek(2) = %v, want ErrOutOfRange", err)
	}
	tests := []struct {
		seek, want int64
	}{
		{15, 20}, // a gap: the next message after it
		{29990, 29990},
		{5, 5},
		{12345, 12350},
		{20, 20},
	}
	for _, tt := range tests {
		if err := r.SeekSeq(tt.seek); err != nil {
			t.Fatalf("Seek(%d): %v", tt.seek, err)
		}
		m, err := r.Next()
		if err != nil || m.Seq != tt.want {
			t.Fatalf("after Seek(%d): got seq %d (%v), want %d", tt.seek, m.Seq, err, tt.want)
		}
	}
	if err := r.SeekSeq(29991); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("Seek(29991) = %v, want ErrOutOfRange", err)
	}
}

func TestSeekOverBadLine(t *testing.T) {
	content := tapeOf(5, 1, false) + `{"type":"message","seq":"x"}` + "\n"
	r, err := Open(writeTemp(t, "a.jsonl", content))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.SeekSeq(10)
	if e := asError(t, err); e.Line != 7 {
		t.Fatalf("Seek past a bad line: got %v, want the bad line's error (line 7)", err)
	}
	// The reader is still usable from where it was.
	m, err := r.Next()
	if err != nil || m.Seq != 0 {
		t.Fatalf("Next after the failed seek: seq %d, %v; want seq 0", m.Seq, err)
	}
	// After Next fails on the bad line, a seek back recovers.
	if _, err := drain(r); err == nil {
		t.Fatal("drain: got no error, want the bad line")
	}
	if err := r.SeekSeq(2); err != nil {
		t.Fatalf("Seek(2) after an error: %v", err)
	}
	if m, err := r.Next(); err != nil || m.Seq != 2 {
		t.Fatalf("Next = %d, %v; want 2", m.Seq, err)
	}
}

func TestSeekVCR(t *testing.T) { seekNine(t, fixtures+"abacus-v1.vcr") }

// TestSeekVCRSharedSample seeks in the third-party sample, when
// REPLAYCTL_VCR_SAMPLES names its folder.
func TestSeekVCRSharedSample(t *testing.T) {
	needSamples(t)
	seekNine(t, samples+"calculator-v1.vcr")
}

// seekNine seeks back and forth in a cassette of 9 messages.
func seekNine(t *testing.T, path string) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, seq := range []int64{8, 0, 4} {
		if err := r.SeekSeq(seq); err != nil {
			t.Fatalf("Seek(%d): %v", seq, err)
		}
		if m, err := r.Next(); err != nil || m.Seq != seq {
			t.Fatalf("Next after Seek(%d) = %d, %v", seq, m.Seq, err)
		}
	}
	for _, seq := range []int64{9, -1} {
		if err := r.SeekSeq(seq); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Seek(%d) = %v, want ErrOutOfRange", seq, err)
		}
	}
}

// A seq past the last message says where the tape ends, and that it is
// out of range.
func TestSeekPastLastSaysWhereTheTapeEnds(t *testing.T) {
	p := writeTemp(t, "t.jsonl", hdr+msgLine(0, 0, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)+msgLine(1, 5, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`))
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.SeekSeq(99)
	if want := "tape " + p + " ends at seq 1 (seq 99 is past it)"; err == nil || err.Error() != want || !errors.Is(err, ErrOutOfRange) {
		t.Errorf("SeekSeq(99): got %v, want %q wrapping ErrOutOfRange", err, want)
	}
	if m, err := r.Next(); err != nil || m.Seq != 0 {
		t.Errorf("after a failed seek: Next gave seq %d, %v; want seq 0: the reader stays", m.Seq, err)
	}
}
