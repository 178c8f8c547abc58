package record

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/tape"
)

type upper struct{}

// Message marks every message it sees, so the test can tell it ran.
func (upper) Message(m *tape.Message) { m.Session = "redacted-" + m.Session }

// TestTapConcurrent records from many goroutines at once and reads the tape
// back: every message is there once, seqs are 0…n-1 in line order, times
// never go back, and the redactor saw each message.
func TestTapConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w, err := tape.NewWriter(&buf, tape.Header{})
	if err != nil {
		t.Fatal(err)
	}
	tap := NewTap(w, WithRedactor(upper{}))
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"n","params":{"g":%d,"i":%d}}`, g, i)
				if err := tap.Record(time.Time{}, fmt.Sprintf("s%d", g), tape.C2S, msg, nil, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := tap.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tap.Record(time.Time{}, "late", tape.C2S, []byte(`{}`), nil, nil); err == nil {
		t.Error("Record after Close: got no error")
	}
	msgs, err := readBack(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != workers*each {
		t.Fatalf("got %d messages, want %d", len(msgs), workers*each)
	}
	seen := map[string]bool{}
	var last int64
	for i, m := range msgs {
		if m.Seq != int64(i) {
			t.Fatalf("message %d has seq %d", i, m.Seq)
		}
		if m.TUS < last {
			t.Fatalf("seq %d: t_us %d before %d", m.Seq, m.TUS, last)
		}
		last = m.TUS
		if len(m.Session) < 9 || m.Session[:9] != "redacted-" {
			t.Fatalf("seq %d: session %q did not pass the redactor", m.Seq, m.Session)
		}
		seen[string(m.Msg)] = true
	}
	if len(seen) != workers*each {
		t.Errorf("got %d distinct messages, want %d", len(seen), workers*each)
	}
}

// TestTapClock stamps messages with the time they were seen, kept monotonic.
func TestTapClock(t *testing.T) {
	var buf bytes.Buffer
	w, err := tape.NewWriter(&buf, tape.Header{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	tap := NewTap(w, withClock(func() time.Time { return t0 }))
	for _, at := range []time.Duration{1500 * time.Microsecond, 700 * time.Microsecond, 3 * time.Millisecond} {
		if err := tap.Record(t0.Add(at), "s1", tape.S2C, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), &tape.HTTPMeta{Status: 200}, nil); err != nil {
			t.Fatal(err)
		}
	}
	tap.Close()
	msgs, err := readBack(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, m := range msgs {
		got = append(got, m.TUS)
	}
	if fmt.Sprint(got) != "[1500 1500 3000]" {
		t.Errorf("t_us: got %v, want [1500 1500 3000]", got)
	}
	if msgs[0].HTTP == nil || msgs[0].HTTP.Status != 200 {
		t.Errorf("http meta lost: %+v", msgs[0].HTTP)
	}
}

// readBack reads every message of a native tape held in b.
func readBack(b []byte) ([]tape.Message, error) {
	r, err := tape.NewReader("tap", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var msgs []tape.Message
	for {
		m, err := r.Next()
		if err == io.EOF {
			return msgs, nil
		}
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
}
