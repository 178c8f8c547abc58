// Package calls writes the tape that the load tests and benchmarks
// replay: one session "s1" of the handshake (initialize, its answer,
// notifications/initialized), then N tools/call requests Gap apart, each
// answered 0.1 ms after it. engine's BenchmarkPipeline, tape's
// BenchmarkReadTape, engine's pacing and collection tests and tailbench's
// tape are all this tape.
//
// It writes the native format with fmt rather than through tape.Writer so
// that package tape's own tests can use it (tape imports nothing of it).
package calls

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"
)

// Tape is the shape of a tape of calls. Only N is required.
type Tape struct {
	N int // tools/call requests, ids 1 to N

	// Gap is the recorded time between two calls (0: 1 ms).
	Gap time.Duration
	// Start is when call 1 was recorded, call i at Start + (i-1)×Gap
	// (0: at Gap, call i at i×Gap).
	Start time.Duration
	// Transport is the header's transport ("": stdio).
	Transport string
	// Server is the serverInfo name of the initialize answer ("": bench).
	Server string
	// Call is the body of call i ("": Echo, arguments {"message":"message
	// i"}).
	Call func(i int) string
	// Answer is the text of the answer to call i (nil: "Echo: message
	// i"), written with %q: printable text.
	Answer func(i int) string
}

// Echo is the default body of call i: tools/call "echo" with the message
// "message i".
func Echo(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message %d"}}}`, i, i)
}

// Messages is how many messages t holds: the handshake's three and two
// per call.
func (t Tape) Messages() int { return 2*t.N + 3 }

// WriteTo writes t to w, buffered: the header, every message, the end
// line.
func (t Tape) WriteTo(w io.Writer) (int64, error) {
	gap := t.Gap
	if gap == 0 {
		gap = time.Millisecond
	}
	start := t.Start
	if start == 0 {
		start = gap
	}
	transport := t.Transport
	if transport == "" {
		transport = "stdio"
	}
	server := t.Server
	if server == "" {
		server = "bench"
	}
	call, answer := t.Call, t.Answer
	if call == nil {
		call = Echo
	}
	if answer == nil {
		answer = func(i int) string { return fmt.Sprintf("Echo: message %d", i) }
	}

	cw := &countWriter{w: w}
	b := bufio.NewWriterSize(cw, 1<<20)
	seq := 0
	line := func(at int64, dir, msg string) {
		fmt.Fprintf(b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"%s","msg":%s}`+"\n", seq, at, dir, msg)
		seq++
	}
	fmt.Fprintf(b, `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":%q}`+"\n", transport)
	line(0, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	line(50, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":%q,"version":"1"}}}`, server))
	line(60, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	last := int64(60)
	for i := 1; i <= t.N; i++ {
		at := (start + time.Duration(i-1)*gap).Microseconds()
		line(at, "c2s", call(i))
		line(at+100, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, i, answer(i)))
		last = at + 100
	}
	fmt.Fprintf(b, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", seq, last)
	err := b.Flush()
	return cw.n, err
}

// Write writes t to the file at path atomically: to a temporary file
// beside it, synced, then renamed over path.
func (t Tape) Write(path string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write tape of calls: %w", err)
	}
	_, err = t.WriteTo(f)
	if err == nil {
		err = f.Sync()
	}
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write tape of calls %s: %w", path, err)
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
