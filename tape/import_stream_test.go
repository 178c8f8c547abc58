package tape

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestImportedLogReadsAgain: a JSON-RPC log is served from its file, so
// seeking back and rewinding read it again, with the same directions,
// sessions and times as the first time and as DecodeLog.
func TestImportedLogReadsAgain(t *testing.T) {
	var b strings.Builder
	b.WriteString("\n\n") // blank lines before the first: line numbers count them
	for i := range 10 {
		fmt.Fprintf(&b, "2026-05-01T10:00:%02d.000Z recv {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i, i)
		fmt.Fprintf(&b, "2026-05-01T10:00:%02d.500Z send {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n", i, i)
	}
	r, err := Open(writeTemp(t, "x.log", b.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	first := readAll(t, r)
	_, want, _, err := DecodeLog("x.log", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 20 || first[0].Line != 3 || first[1].Dir != S2C || r.End().DurationUS != 9_500_000 {
		t.Fatalf("got %d messages, first at line %d, second %s, duration %d µs; want 20, line 3, s2c, 9500000", len(first), first[0].Line, first[1].Dir, r.End().DurationUS)
	}
	if err := r.SeekSeq(5); err != nil {
		t.Fatal(err)
	}
	again := readAll(t, r)
	if !reflect.DeepEqual(again, first[5:]) {
		t.Errorf("after SeekSeq(5): got %+v, want %+v", again[0], first[5])
	}
	if err := r.Rewind(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, r); !reflect.DeepEqual(got, first) {
		t.Errorf("after Rewind: got %+v…, want %+v…", got[0], first[0])
	}
	if !reflect.DeepEqual(first, want[:len(first)]) {
		t.Errorf("the reader's messages differ from DecodeLog's")
	}
	if err := r.SeekSeq(20); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("SeekSeq past the end: got %v, want ErrOutOfRange", err)
	}
}

// TestImportedLogLineTooLong: a log line over the reader's line limit is
// refused, naming the line and the flag, before anything is kept of it.
func TestImportedLogLineTooLong(t *testing.T) {
	doc := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("y", 500) + `"}}` + "\n"
	_, err := Open(writeTemp(t, "x.log", doc), WithMaxLine(200))
	e := asError(t, err)
	if !errors.Is(err, ErrLineTooLong) || e.Line != 2 || !strings.Contains(e.Msg, "--max-line") {
		t.Errorf("got %v (line %d), want ErrLineTooLong at line 2 naming --max-line", err, e.Line)
	}
}

// TestImportedHARSpill: a streamed HAR's messages are read back from the
// spill file as DecodeHAR returns them, in order, again after a rewind.
func TestImportedHARSpill(t *testing.T) {
	doc := string(readFile(t, "testdata/gosdk-2025.har"))
	_, want, _, err := DecodeHAR("testdata/gosdk-2025.har", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open("testdata/gosdk-2025.har")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.importSource().(*imported).store.(*spillStore); !ok {
		t.Fatalf("the HAR was not streamed into a spill file (store %T)", r.importSource().(*imported).store)
	}
	for pass := range 2 {
		// The spill file is a native tape: its reader's messages carry
		// the parse it found (Message.RPC), DecodeHAR's do not; the views
		// must agree, and everything else be equal.
		if got := readAll(t, r); !reflect.DeepEqual(withoutRPC(t, got), withoutRPC(t, want)) {
			t.Errorf("pass %d: got %d messages, want %d as DecodeHAR", pass, len(got), len(want))
		}
		if err := r.Rewind(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImportedLogFromAPipe: a log read from a pipe, which cannot seek, is
// copied to a temporary file for its second pass.
func TestImportedLogFromAPipe(t *testing.T) {
	doc := "--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n<-- {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
	_, want, _, err := DecodeLog("pipe", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	done := make(chan error, 1)
	go func() {
		_, err := pw.WriteString(doc)
		pw.Close()
		done <- err
	}()
	r, err := NewReader("pipe", pr)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		if got := readAll(t, r); !reflect.DeepEqual(got, want) {
			t.Errorf("pass %d: got %+v, want %+v", pass, got, want)
		}
		if err := r.Rewind(); err != nil {
			t.Fatal(err)
		}
	}
}
