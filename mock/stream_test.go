package mock

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/streamhold"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// tapeFile writes a tape to a file and returns its path.
func tapeFile(t testing.TB, body []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startStream makes a mock of the tape path and starts its streamed read
// of it, as a replay against it does (Mock.StreamTape).
func startStream(tb testing.TB, path string) (m *Mock, next func() (tape.Message, error), end func() []string) {
	tb.Helper()
	m = New(path)
	next, end, ok := m.StreamTape(tape.File(path))
	if !ok {
		tb.Fatal("StreamTape: not ok")
	}
	return m, next, end
}

// holdStream makes streaming reads hand over one batch of n messages,
// then wait until the returned release is called (by the test's
// cleanup at the latest) or the read is halted.
func holdStream(t *testing.T, n int) (release func()) {
	savedBatch, savedHook := streamBatch, streamhold.Batch
	gate := make(chan struct{})
	streamBatch, streamhold.Batch = n, func(halted <-chan struct{}) {
		select {
		case <-gate:
		case <-halted:
		}
	}
	var released bool
	release = func() {
		if !released {
			released = true
			close(gate)
		}
	}
	t.Cleanup(func() {
		release()
		streamBatch, streamhold.Batch = savedBatch, savedHook
	})
	return release
}

// TestStreamAnswersBeforeTheEnd: a replay that takes the tape gets its
// first messages, and the mock answers its first request, while the
// rest of the tape is not read yet; LastSeqs waits for the end.
func TestStreamAnswersBeforeTheEnd(t *testing.T) {
	const calls = 1000
	path := tapeFile(t, callsTape(calls))
	release := holdStream(t, 8) // the read holds after 8 messages
	m, next, end := startStream(t, path)
	var first []tape.Message
	for range 5 { // initialize, its answer, initialized, call 0, its answer
		msg, err := next()
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, msg)
	}
	c, err := m.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, k := range []int{0, 3} { // each request, then its answer
		if err := c.Send(t.Context(), first[k].Msg); err != nil {
			t.Fatal(err)
		}
		got := <-c.Incoming()
		if want := first[k+1].Msg; string(got.Msg) != string(want) {
			t.Errorf("answer %s, want %s", got.Msg, want)
		}
	}
	select {
	case <-m.r.done:
		t.Fatal("the read ended before the first answers, want them while it is held")
	default:
	}
	release()
	n := len(first)
	for {
		_, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if want := 3 + 2*calls; n != want {
		t.Errorf("%d messages, want %d", n, want)
	}
	if w, _ := readAll(t, tape.File(path)); len(w) != n {
		t.Errorf("%d messages, a plain reader's %d", n, len(w))
	}
	if w, want := end(), readAllWarnings(t, path); !slices.Equal(w, want) {
		t.Errorf("warnings %q, want a plain reader's %q", w, want)
	}
	lasts, ok := m.LastSeqs(t.Context(), tape.File(path))
	if !ok || lasts["s1"] != 2+2*calls {
		t.Errorf("LastSeqs = %v, %v; want s1: %d", lasts, ok, 2+2*calls)
	}
}

// streamTape is a tape of three sessions, interleaved, whose requests a
// replay may ask out of order: ids reused once answered, answers out of
// request order, server notifications before answers, the same call
// recorded twice with different answers, and a last request never
// answered.
func streamTape() ([]byte, [][]tape.Message) {
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1}` + "\n")
	seq := 0
	reqs := make([][]tape.Message, 3)
	line := func(s int, dir, msg string) {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s%d","dir":"%s","msg":%s}`+"\n", seq, seq, s+1, dir, msg)
		if dir == "c2s" {
			reqs[s] = append(reqs[s], tape.Message{Seq: int64(seq), Session: fmt.Sprintf("s%d", s+1), Msg: []byte(msg)})
		}
		seq++
	}
	for i := range 60 {
		for s := range 3 {
			id := i%5 + 1 // reused once answered
			arg := i % 7  // recorded again, answered otherwise
			if i%9 == 4 { // two requests asked before either is answered, answered in reverse
				line(s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":"x%d","method":"tools/call","params":{"name":"slow","arguments":{"n":%d}}}`, i, arg))
				line(s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
				line(s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"pong":%d}}`, id, i))
				line(s, "s2c", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`)
				line(s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":"x%d","result":{"slow":%d,"s":%d}}`, i, i, s))
				continue
			}
			line(s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d}}}`, id, arg))
			if i%4 == 1 {
				line(s, "s2c", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}`)
			}
			line(s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"echo":%d,"i":%d,"s":%d}}`, id, arg, i, s))
		}
	}
	for s := range 3 {
		line(s, "c2s", `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"never"}}`)
	}
	return []byte(b.String()), reqs
}

// script is what a replay asks as it reaches the k-th recorded request
// of a session: the recorded request, and from the 40th on, around some
// of them, requests out of order, again, reworded (the same params,
// other bytes) or that the tape does not have. The first of those makes
// a streamed mock wait for the tape's end.
func script(reqs []tape.Message, k int) [][]byte {
	msg := reqs[k].Msg
	if k < 40 { // in order: each answered while the tape is read
		return [][]byte{msg}
	}
	switch k % 11 {
	case 3: // the next one first, then this
		if k+1 < len(reqs) {
			return [][]byte{reqs[k+1].Msg, msg}
		}
	case 4: // asked already, out of order: skip it
		return nil
	case 6:
		return [][]byte{msg, msg} // again
	case 7:
		return [][]byte{[]byte(strings.Replace(string(msg), `"params":{`, `"params": { `, 1))}
	case 8:
		return [][]byte{msg, []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nosuch"}}`)}
	case 9:
		return [][]byte{[]byte(`{"jsonrpc":"2.0","id":6,"method":"nosuch/method"}`), msg}
	}
	return [][]byte{msg}
}

// TestStreamAnswersAsTheIndex: a mock whose tape a replay streams
// answers every request, out of order, again, missed, of a virtual
// copy or of a session the tape does not have, as a mock that read its
// tape whole first does, whatever part of the tape is read when it is
// asked.
func TestStreamAnswersAsTheIndex(t *testing.T) {
	body, reqs := streamTape()
	path := tapeFile(t, body)
	want := askAll(t, New(path), reqs, nil)
	for _, batch := range []int{1, 3, 64} {
		t.Run(fmt.Sprint("batch=", batch), func(t *testing.T) {
			savedBatch, savedHook := streamBatch, streamhold.Batch
			// The read goes on a batch when the replay has taken
			// what it read, or a connection waits for it to grow; to
			// the end when one waits for the end. The hook learns
			// which read it holds (the mock's) from reading, once the
			// read has started.
			var waits int64
			var r *reading // the hook's: the read's goroutine's
			reading := make(chan *reading, 1)
			streamBatch, streamhold.Batch = batch, func(<-chan struct{}) {
				if r == nil {
					r = <-reading
				}
				for {
					r.qmu.Lock()
					taken := len(r.queue) == 0
					r.qmu.Unlock()
					r.mu.Lock()
					grow, end := r.waits > waits, r.onDone > 0
					waits = r.waits
					r.mu.Unlock()
					if taken || grow || end {
						return
					}
					runtime.Gosched()
				}
			}
			t.Cleanup(func() { streamBatch, streamhold.Batch = savedBatch, savedHook })
			m, next, end := startStream(t, path)
			reading <- m.r
			got := askAll(t, m, reqs, next)
			end()
			if len(got["s1"]) < len(reqs[0]) || len(got["s4"]) < len(reqs[0]) {
				t.Fatalf("%d and %d messages for s1 and s4, want every answer", len(got["s1"]), len(got["s4"]))
			}
			for _, s := range askSessions {
				for i := range max(len(got[s]), len(want[s])) {
					var g, w string
					if i < len(got[s]) {
						g = got[s][i]
					}
					if i < len(want[s]) {
						w = want[s][i]
					}
					if g != w {
						t.Errorf("session %s, message %d: streamed %s, want (the whole index's) %s", s, i, g, w)
						break
					}
				}
			}
		})
	}
}

// askSessions are the sessions askAll asks, each as the recorded
// session askRecorded (s4: not on the tape, asked s1's requests).
var (
	askSessions = []string{"s1", "s2", "s3", "s1#2", "s4"}
	askRecorded = map[string]string{"s1": "s1", "s2": "s2", "s3": "s3", "s1#2": "s1", "s4": "s1"}
)

// askAll asks m each session's script (see script), each session on a
// connection of its own: with next (a streamed tape), each recorded
// request's as next gives it, while the read goes on; without, all in
// tape order. It returns what each session's connection received.
func askAll(t *testing.T, m *Mock, reqs [][]tape.Message, next func() (tape.Message, error)) map[string][]string {
	t.Helper()
	conns := map[string]transport.Conn{}
	got := map[string][]string{}
	for _, s := range askSessions {
		c, err := m.Dial(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[s] = c
	}
	seen := map[string]int{}
	ask := func(session string, last bool) {
		k := seen[session]
		seen[session]++
		n, _ := strconv.Atoi(session[1:])
		for _, s := range askSessions {
			// s4 is asked last: it waits for the tape's end
			if askRecorded[s] != session || (s == "s4") != last {
				continue
			}
			for _, msg := range script(reqs[n-1], k) {
				if err := conns[s].Send(t.Context(), msg); err != nil {
					t.Fatal(err)
				}
				for { // notes, then the answer
					in := <-conns[s].Incoming()
					got[s] = append(got[s], string(in.Msg))
					if r, err := jsonrpc.Parse(in.Msg); err != nil || r.Kind != jsonrpc.KindNotification {
						break
					}
				}
			}
		}
	}
	if next == nil {
		var all []tape.Message
		for _, rs := range reqs {
			all = append(all, rs...)
		}
		slices.SortFunc(all, func(a, b tape.Message) int { return cmp.Compare(a.Seq, b.Seq) })
		for _, msg := range all {
			ask(msg.Session, false)
		}
	} else {
		for {
			msg, err := next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg.Dir == tape.C2S {
				ask(msg.Session, false)
			}
		}
	}
	seen = map[string]int{}
	for range reqs[0] {
		ask("s1", true)
	}
	return got
}

// readAllWarnings returns a plain reader's warnings of the tape at path.
func readAllWarnings(t *testing.T, path string) []string {
	_, w := readAll(t, tape.File(path))
	return w
}

// TestStreamTapeError: a tape with a bad line in its middle, streamed:
// the replay gets the messages before it, then the reader's own error
// (its file and line), as a plain reader gives them; a connection
// waiting for an answer past it answers with that error, and so does
// every request of a connection dialled after it (the Dial itself does
// not fail: the replay would blame the target), while a Dial of a mock
// that read the tape first fails with it.
func TestStreamTapeError(t *testing.T) {
	lines := strings.SplitAfter(string(callsTape(100)), "\n")
	bad := 120 // a line number, 1-based: a call's answer
	lines = slices.Insert(lines, bad-1, "{\"type\":\"message\",\"seq\":\n")
	path := tapeFile(t, []byte(strings.Join(lines, "")))
	var want []tape.Message
	r, err := tape.OpenSource(tape.File(path))
	if err != nil {
		t.Fatal(err)
	}
	var wantErr error
	for {
		m, err := r.Next()
		if err != nil {
			wantErr = err
			break
		}
		want = append(want, m)
	}
	r.Close()
	var te *tape.Error
	if !errors.As(wantErr, &te) || te.Line != int64(bad) {
		t.Fatalf("a plain reader's error %v, want one at line %d", wantErr, bad)
	}

	release := holdStream(t, 4)
	m, next, end := startStream(t, path)
	c, err := m.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []tape.Message
	for range 3 { // initialize, its answer, initialized
		msg, err := next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msg)
	}
	// Asked while the read is held, in order: answered from the index so
	// far. (Asked once the read has failed, it would get the tape's
	// error, and no answer: so it is asked here, not on the goroutine.)
	initialize, initialized := got[0].Msg, got[2].Msg
	if err := c.Send(t.Context(), initialize); err != nil {
		t.Fatalf("Send of initialize while the read is held: %v", err)
	}
	select {
	case <-c.Incoming():
	case <-time.After(30 * time.Second): // a bound, not a wait: indexed, it is answered at once
		t.Fatal("initialize, indexed before the hold, not answered in 30 s")
	}
	if err := c.Send(t.Context(), initialized); err != nil { // a notification: nothing
		t.Fatal(err)
	}
	// Once the read has failed, the request past the bad line is not
	// answered (an answer would be blamed on the target): its Send returns
	// the tape's error, whether it was asked before the failure (it waits)
	// or after it.
	asked := make(chan error, 1)
	go func() {
		asked <- c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call 99"}}}`))
	}()
	for !waitsForEnd(m.r) { // initialize answered, the last request waits: let the read fail
		runtime.Gosched()
	}
	release()
	for {
		msg, err := next()
		if err != nil {
			if err.Error() != wantErr.Error() || !errors.As(err, &te) || te.Line != int64(bad) {
				t.Errorf("error %v, want a plain reader's %v", err, wantErr)
			}
			break
		}
		got = append(got, msg)
	}
	if len(got) != len(want) {
		t.Errorf("%d messages before the error, a plain reader's %d", len(got), len(want))
	}
	end()
	select {
	case err := <-asked:
		if !errors.As(err, &te) || te.Line != int64(bad) || err.Error() != wantErr.Error() {
			t.Errorf("Send of a request past the bad line = %v, want the tape's error %v", err, wantErr)
		}
	case <-time.After(30 * time.Second): // a bound, not a wait: the read has ended, the Send returns at once
		t.Fatal("Send of a request past the bad line did not return within 30 s of the read's end")
	}
	select {
	case in := <-c.Incoming():
		t.Errorf("a request past the bad line answered %s, want no answer", in.Msg)
	default:
	}
	after, err := m.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatalf("Dial after the read failed: %v, want a connection whose requests fail with %v", err, wantErr)
	}
	err = after.Send(t.Context(), initialize)
	after.Close()
	if !errors.As(err, &te) || te.Line != int64(bad) || err.Error() != wantErr.Error() {
		t.Errorf("Send of initialize on a connection dialled after the read failed = %v, want the tape's error %v", err, wantErr)
	}
	if _, err := New(path).Dial(t.Context(), "s1"); err == nil || !strings.Contains(err.Error(), wantErr.Error()) {
		t.Errorf("Dial of a mock that read first: %v, want %v", err, wantErr)
	}
}

// TestStreamLeftEarly: a replay that stops taking the messages (it was
// cancelled) and calls end finds the read ended: no goroutine is left
// (goleak, in TestMain), and the mock's index is whole.
func TestStreamLeftEarly(t *testing.T) {
	path := tapeFile(t, callsTape(2000))
	m, next, end := startStream(t, path)
	if _, err := next(); err != nil {
		t.Fatal(err)
	}
	end()
	select {
	case <-m.r.finished:
	default:
		t.Error("end returned before the read's goroutine did")
	}
	idx, err := m.index()
	if err != nil || len(idx.sessions["s1"]) != 2001 {
		t.Errorf("index: %v, %d entries of s1; want 2001", err, len(idx.sessions["s1"]))
	}
}

// TestStreamTapeEndedEarlyIsNoEOF: a replay that stops taking a streamed
// tape (end) once the mock's read has met the tape's end, with messages
// still queued for it, gets no io.EOF from a later next: it did not meet
// the tape's end, and a replay that took io.EOF for it counted the tape
// as what it had taken (an interrupted replay reported a partial count
// as the tape's). Before the fix next gave io.EOF.
func TestStreamTapeEndedEarlyIsNoEOF(t *testing.T) {
	path := tapeFile(t, callsTape(1000))
	release := holdStream(t, 16)
	m, next, end := startStream(t, path)
	if _, err := next(); err != nil { // the first batch is taken, the read held after it
		t.Fatal(err)
	}
	release()
	if _, ok := m.LastSeqs(t.Context(), tape.File(path)); !ok { // waits for the read's end
		t.Fatal("LastSeqs: not ok")
	}
	end() // the rest, queued, is not taken
	for range 2003 {
		_, err := next()
		if errors.Is(err, io.EOF) {
			t.Fatal("next after end gave io.EOF, with messages of the tape not given: want errHalted")
		}
		if err != nil {
			if !errors.Is(err, errHalted) {
				t.Errorf("next after end: %v, want errHalted", err)
			}
			return
		}
	}
	t.Fatal("next after end gave the whole tape, want it to stop")
}
