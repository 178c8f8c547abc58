package tape

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

const hdr = `{"type":"header","format":"replayctl-tape","version":1}` + "\n"

// writeTemp writes content to a file in a fresh temp dir and returns its path.
func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// msgLine is a native message line.
func msgLine(seq, tus int64, dir, msg string) string {
	return fmt.Sprintf(`{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":%q,"msg":%s}`+"\n", seq, tus, dir, msg)
}

// readAll reads every message of r, failing the test on an error.
func readAll(t testing.TB, r *Reader) []Message {
	t.Helper()
	var out []Message
	for {
		m, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next after %d messages: %v", len(out), err)
		}
		out = append(out, m)
	}
}

// withoutRPC returns msgs without the parse a reader carries with each
// (Message.RPC), after checking that it is Parse's answer.
func withoutRPC(t testing.TB, msgs []Message) []Message {
	t.Helper()
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		got, gerr := m.RPC()
		want, werr := jsonrpc.Parse(m.Msg)
		if !reflect.DeepEqual(got, want) || (gerr == nil) != (werr == nil) {
			t.Fatalf("message %d: RPC() = %+v, %v; jsonrpc.Parse: %+v, %v", i, got, gerr, want, werr)
		}
		m.rpc = jsonrpc.Kept{}
		out[i] = m
	}
	return out
}

// drain reads r to its end and returns the error that stopped it (nil at EOF).
func drain(r *Reader) (int, error) { return drainEach(r, nil) }

// drainEach reads r to its end, calling each (when not nil) on every
// message, and returns how many it read and the error that stopped it
// (nil at EOF).
func drainEach(r *Reader, each func(Message) error) (int, error) {
	n := 0
	for {
		m, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if each != nil {
			if err := each(m); err != nil {
				return n, err
			}
		}
		n++
	}
}

// tapeOf builds a native tape of n messages with seq i*step.
func tapeOf(n int, step int64, withEnd bool) string {
	var b strings.Builder
	b.WriteString(hdr)
	for i := range int64(n) {
		dir := "c2s"
		if i%2 == 1 {
			dir = "s2c"
		}
		b.WriteString(msgLine(i*step, i*100, dir, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, i)))
	}
	if withEnd {
		fmt.Fprintf(&b, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", n, max(0, int64(n-1)*100))
	}
	return b.String()
}

func asError(t testing.TB, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want *Error", err, err)
	}
	return e
}

// native is the native reader behind r, for tests that look at where it
// stands (its offset, its Seek index).
func (r *Reader) native() *nativeReader { return r.body.(*nativeReader) }
