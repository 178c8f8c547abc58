package transport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The limit on what a target sends, over real pipes, a real subprocess
// and real HTTP on loopback: each stream below is far longer than the
// limit (1 GiB or more), and must cost a connection no more than a few
// times the limit.

const (
	testLimit = 1 << 20
	// allocBound is the most a test may allocate in all (the client, and
	// the server in this process) while a stream of a GiB or more is
	// refused.
	allocBound = 32 << 20
	// endlessBytes is where the endless writers give up, so that a test
	// of a broken limit ends (and fails) instead of running for ever.
	endlessBytes = 2 << 30
)

var xs = bytes.Repeat([]byte("x"), 64<<10)

// writeEndless writes text to w in pieces of 64 KiB, calling flush (if
// not nil) after each, until a write fails or endlessBytes are written.
func writeEndless(w io.Writer, flush func()) error {
	for n := 0; n < endlessBytes; n += len(xs) {
		if _, err := w.Write(xs); err != nil {
			return err
		}
		if flush != nil {
			flush()
		}
	}
	return nil
}

// allocatedWhile is what the process allocated while fn ran, in bytes
// (MemStats.TotalAlloc): a bound on the memory fn used at its peak,
// whatever it freed since.
func allocatedWhile(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkTooLarge checks err is the failure of a target that sent a
// message over limit, saying so: what, the limit and the flag.
func checkTooLarge(t *testing.T, err error, what string) {
	t.Helper()
	tl, ok := errors.AsType[*TooLargeError](err)
	if !ok || tl.Limit != testLimit || !errors.Is(err, ErrTarget) {
		t.Fatalf("got error %v, want a *TooLargeError of limit %d matching ErrTarget", err, testLimit)
	}
	for _, want := range []string{what, "1 MiB (1048576 bytes)", "--max-message", "replay.MaxMessage"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// drain takes every message until Incoming closes.
func drain(c Conn) []string {
	var got []string
	for in := range c.Incoming() {
		got = append(got, string(in.Msg))
	}
	return got
}

func TestReadLineLimit(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  []string
		over  bool
	}{
		{"abc\nde\n", 3, []string{"abc", "de"}, false},
		{"abc\r\nde", 3, []string{"abc", "de"}, false},
		{"abcd\nde\n", 3, nil, true},
		{"ab\nabcd", 3, []string{"ab"}, true},
		{strings.Repeat("a", 200<<10) + "\n", 200 << 10, []string{strings.Repeat("a", 200<<10)}, false},
		{strings.Repeat("a", 200<<10) + "\r\n", 200 << 10, []string{strings.Repeat("a", 200<<10)}, false},
		{strings.Repeat("a", 200<<10+1) + "\n", 200 << 10, nil, true},
	}
	for _, tc := range tests {
		r := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
		var got []string
		var buf []byte
		over := false
		for {
			line, keep, err := readLine(r, buf, tc.limit)
			buf = keep
			if errors.Is(err, errLineTooLong) {
				over = true
				break
			}
			if len(line) > 0 {
				got = append(got, string(line))
			}
			if err != nil {
				break
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || over != tc.over {
			t.Errorf("readLine(%.20q…, limit %d): got %d lines, over %v; want %d lines, over %v", tc.in, tc.limit, len(got), over, len(tc.want), tc.over)
		}
	}
}

// TestStdioLineOverLimit: a real subprocess writes a message, then a line
// that never ends. The message is delivered, the line read no further
// than the limit, and the connection ends with the limit's error.
func TestStdioLineOverLimit(t *testing.T) {
	argv, env := helperCommand(t, "endless")
	var c *StdioConn
	var got []string
	alloc := allocatedWhile(func() {
		c = dialStdio(t, Stdio{Command: argv, Env: env, MaxMessage: testLimit})
		got = drain(c)
	})
	if len(got) != 1 || !strings.Contains(got[0], "ready") {
		t.Errorf("got messages %.80q, want the one before the endless line", got)
	}
	checkTooLarge(t, c.Err(), "a stdout line of server")
	t.Logf("allocated %d bytes", alloc)
	if alloc > allocBound {
		t.Errorf("allocated %d bytes, want under %d: the endless line was read past the limit", alloc, allocBound)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestPipeLineOverLimit: the same with a server in this process.
func TestPipeLineOverLimit(t *testing.T) {
	p := Pipe{Serve: func(_ context.Context, _ io.ReadCloser, out io.WriteCloser) error {
		if _, err := io.WriteString(out, "{\"jsonrpc\":\"2.0\",\"method\":\"ready\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\""); err != nil {
			return err
		}
		return writeEndless(out, nil)
	}, Name: "endless", MaxMessage: testLimit, Logger: testLogger(t)}
	var c Conn
	var got []string
	alloc := allocatedWhile(func() {
		var err error
		if c, err = p.Dial(t.Context(), "s1"); err != nil {
			t.Fatal(err)
		}
		got = drain(c)
	})
	defer c.Close()
	if len(got) != 1 {
		t.Errorf("got %d messages, want the one before the endless line", len(got))
	}
	checkTooLarge(t, c.Err(), `a line of the output of in-process server "endless"`)
	t.Logf("allocated %d bytes", alloc)
	if alloc > allocBound {
		t.Errorf("allocated %d bytes, want under %d", alloc, allocBound)
	}
}

// TestMessageAtTheLimit: a message of exactly the limit goes through
// every transport; one byte more does not.
func TestMessageAtTheLimit(t *testing.T) {
	msg := func(n int) string { // a JSON-RPC answer of n bytes
		head, tail := `{"jsonrpc":"2.0","id":1,"result":{"t":"`, `"}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	for _, extra := range []int{0, 1} {
		body := msg(testLimit + extra)
		targets := map[string]Dialer{
			"pipe": Pipe{Serve: func(_ context.Context, in io.ReadCloser, out io.WriteCloser) error {
				_, _ = io.WriteString(out, body+"\n")
				_, err := io.Copy(io.Discard, in)
				return err
			}, MaxMessage: testLimit},
			"json": Handler{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, body)
			}), MaxMessage: testLimit},
			"sse": Handler{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeSSE(w, "data: "+body+"\n\n")
			}), MaxMessage: testLimit},
		}
		for name, d := range targets {
			t.Run(name+"/+"+strconv.Itoa(extra), func(t *testing.T) {
				c, err := d.Dial(t.Context(), "s1")
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				send(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`)
				in, ok := <-c.Incoming()
				switch {
				case extra == 0 && (!ok || len(in.Msg) != testLimit):
					t.Errorf("got %d bytes (open %v), want the message of %d bytes; Err %v", len(in.Msg), ok, testLimit, c.Err())
				case extra > 0 && ok:
					t.Errorf("got a message of %d bytes, want none over the limit", len(in.Msg))
				case extra > 0:
					if _, isTL := errors.AsType[*TooLargeError](c.Err()); !isTL {
						t.Errorf("Err: got %v, want a *TooLargeError", c.Err())
					}
				}
			})
		}
	}
}

// gzipped is head and then n bytes of "x", as one gzip member: 1 MiB of
// it is about 1 KiB.
func gzipped(head string, n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = io.WriteString(zw, head)
	for ; n > 0; n -= len(xs) {
		_, _ = zw.Write(xs[:min(n, len(xs))])
	}
	_ = zw.Close()
	return b.Bytes()
}

// TestHTTPAnswerOverLimit: a real HTTP server on loopback answers a
// request with more than any client should read, in each way a server
// can. The connection reads no further than the limit (counted after
// decompression for gzip) and ends with the limit's error.
func TestHTTPAnswerOverLimit(t *testing.T) {
	const start = `{"jsonrpc":"2.0","id":1,"result":{"text":"`
	member := gzipped("", 1<<20)
	tests := []struct {
		name   string
		handle func(w http.ResponseWriter, flush func())
		what   string
	}{
		{"json body with a huge Content-Length", func(w http.ResponseWriter, flush func()) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(endlessBytes))
			_ = writeEndless(w, flush)
		}, "the JSON body of an answer to POST"},
		{"json body without end", func(w http.ResponseWriter, flush func()) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, start)
			_ = writeEndless(w, flush)
		}, "the JSON body of an answer to POST"},
		{"gzip bomb", func(w http.ResponseWriter, flush func()) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gzipped(start, 1<<20))
			for n := 1 << 20; n < endlessBytes; n += 1 << 20 { // 1 GiB unpacked
				if _, err := w.Write(member); err != nil {
					return
				}
			}
		}, "the JSON body of an answer to POST"},
		{"sse data line without end", func(w http.ResponseWriter, flush func()) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: "+start)
			_ = writeEndless(w, flush)
		}, "the event stream of POST"},
		{"sse data lines without a blank line", func(w http.ResponseWriter, flush func()) {
			w.Header().Set("Content-Type", "text/event-stream")
			line := "data: " + strings.Repeat("x", 1000) + "\n"
			for n := 0; n < endlessBytes; n += len(line) {
				if _, err := io.WriteString(w, line); err != nil {
					return
				}
			}
		}, "an SSE event's data"},
		{"sse comment without end", func(w http.ResponseWriter, flush func()) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, ": ")
			_ = writeEndless(w, flush)
		}, "a line of an SSE stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
				if s.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				tc.handle(w, w.(http.Flusher).Flush)
			})
			client := NewClient(0)
			defer client.CloseIdleConnections()
			var c *HTTPConn
			var got []string
			alloc := allocatedWhile(func() {
				c = f.dial(t, HTTP{Client: client, MaxMessage: testLimit})
				send(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`)
				got = drain(c)
			})
			if len(got) != 0 {
				t.Errorf("got %d messages, want none", len(got))
			}
			checkTooLarge(t, c.Err(), tc.what)
			if err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); !errors.Is(err, ErrClosed) {
				t.Errorf("Send after the failure: got %v, want ErrClosed", err)
			}
			t.Logf("allocated %d bytes", alloc)
			if alloc > allocBound {
				t.Errorf("allocated %d bytes, want under %d: the answer was read past the limit", alloc, allocBound)
			}
		})
	}
}

// TestLegacySSEEventOverLimit: the 2024-11-05 transport's stream, before
// and after its endpoint event.
func TestLegacySSEEventOverLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		endpoint bool
	}{{"before the endpoint", false}, {"after the endpoint", true}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
				w.Header().Set("Content-Type", "text/event-stream")
				if tc.endpoint {
					_, _ = io.WriteString(w, "event: endpoint\ndata: /msg\n\n")
				}
				_, _ = io.WriteString(w, "event: message\ndata: ")
				_ = writeEndless(w, w.(http.Flusher).Flush)
			})
			alloc := allocatedWhile(func() {
				c, err := LegacySSE{URL: f.srv.URL + "/sse", MaxMessage: testLimit, Logger: testLogger(t)}.Dial(t.Context(), "s1")
				if !tc.endpoint {
					checkTooLarge(t, err, "waiting for the endpoint event")
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if got := drain(c); len(got) != 0 {
					t.Errorf("got %d messages, want none", len(got))
				}
				checkTooLarge(t, c.Err(), "the event stream of")
			})
			t.Logf("allocated %d bytes", alloc)
			if alloc > allocBound {
				t.Errorf("allocated %d bytes, want under %d", alloc, allocBound)
			}
		})
	}
}

// TestAutoProbeOverLimit: the probe that tells the transport reads the
// first event of a GET stream: no more than the limit of it.
func TestAutoProbeOverLimit(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: ")
		_ = writeEndless(w, w.(http.Flusher).Flush)
	})
	alloc := allocatedWhile(func() {
		_, err := (&Auto{URL: f.srv.URL + "/mcp", MaxMessage: testLimit, Logger: testLogger(t)}).Dial(t.Context(), "s1")
		checkTooLarge(t, err, "asking which transport it speaks")
	})
	t.Logf("allocated %d bytes", alloc)
	if alloc > allocBound {
		t.Errorf("allocated %d bytes, want under %d", alloc, allocBound)
	}
}

func TestSSEReaderLimit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		over     string // what the error says, "" for none
	}{
		{"at the limit", "data: 0123456789\n\n", []string{"0123456789"}, ""},
		{"joined at the limit", "data: 0123\ndata: 01234\n\n", []string{"0123\n01234"}, ""},
		{"joined over the limit", "data: 01234\ndata: 01234\n\n", nil, "an SSE event's data"},
		{"line over the limit", "data: x\n\n: " + strings.Repeat("c", 100) + "\n", []string{"x"}, "a line of an SSE stream"},
		{"line without end", "data: x\n\ndata: " + strings.Repeat("d", 1000), []string{"x"}, "a line of an SSE stream"},
		{"long id is a long line", "id: " + strings.Repeat("i", 100) + "\ndata: x\n\n", nil, "a line of an SSE stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sr := NewSSEReader(strings.NewReader(tc.in), MaxEventSize(10))
			sr.lr.limit = 10 + 16 // a smaller room for the field name than sseFieldRoom, to test it
			var got []string
			var err error
			for {
				var ev SSEEvent
				if ev, err = sr.Next(); err != nil {
					break
				}
				got = append(got, string(ev.Data))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got events %q, want %q", got, tc.want)
			}
			switch _, ok := errors.AsType[*TooLargeError](err); {
			case tc.over == "" && err != io.EOF:
				t.Errorf("got error %v, want io.EOF", err)
			case tc.over != "" && (!ok || !strings.Contains(err.Error(), tc.over)):
				t.Errorf("got error %v, want a *TooLargeError about %s", err, tc.over)
			case ok:
				if _, again := sr.Next(); again != err {
					t.Errorf("Next after the error: got %v, want the same error", again)
				}
			}
		})
	}
}

// TestSizeStringOne: one byte is "1 byte", not "1 bytes".
func TestSizeStringOne(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "1 byte"}, {2, "2 bytes"}, {1000, "1000 bytes"}, {16 << 20, "16 MiB (16777216 bytes)"}} {
		if got := SizeString(tc.n); got != tc.want {
			t.Errorf("SizeString(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
