package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func BenchmarkReadLine(b *testing.B) {
	for _, size := range []int{200, 1 << 20} {
		line := `{"jsonrpc":"2.0","id":1,"result":{"s":"` + strings.Repeat("x", size) + "\"}}\n"
		in := []byte(strings.Repeat(line, 64))
		b.Run(fmt.Sprintf("lines=64/bytes=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			var buf []byte
			for b.Loop() {
				r := bufio.NewReaderSize(bytes.NewReader(in), readBufSize)
				n := 0
				for {
					l, keep, err := readLine(r, buf, DefaultMaxMessage)
					buf = keep
					if len(l) > 0 {
						n++
					}
					if err != nil {
						break
					}
				}
				if n != 64 {
					b.Fatalf("got %d lines, want 64", n)
				}
			}
		})
	}
}

// BenchmarkStdioRoundTrip sends a message to the echo helper and waits for
// it to come back: the cost of one exchange over real pipes.
func BenchmarkStdioRoundTrip(b *testing.B) {
	argv, env := helperCommand(b, "echo")
	conn, err := Stdio{Command: argv, Env: env}.Dial(b.Context(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := conn.Send(b.Context(), msg); err != nil {
			b.Fatal(err)
		}
		if in := <-conn.Incoming(); len(in.Msg) != len(msg) {
			b.Fatalf("got %d bytes back, want %d", len(in.Msg), len(msg))
		}
	}
}

// BenchmarkInProcess is one tools/call round trip to a server in this
// process: through Handler (HTTP in memory), through loopback HTTP to the
// same handler, and through Pipe. server=go-sdk is the official Go SDK
// server (its JSON decoding is most of the allocations: both sides are
// counted); server=echo answers with the request itself, so the figures
// are the transports' own.
func BenchmarkInProcess(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	echoHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	servers := []struct {
		name      string
		handler   func() http.Handler
		pipe      func(testing.TB) Pipe
		handshake bool
		want      []byte // in the answer
	}{
		{"go-sdk", sdkHandler, sdkPipe, true, []byte("Echo: hello")},
		{"echo", func() http.Handler { return echoHandler }, func(testing.TB) Pipe {
			return Pipe{Serve: func(_ context.Context, in io.ReadCloser, out io.WriteCloser) error {
				_, err := io.Copy(out, in)
				return err
			}}
		}, false, call},
	}
	for _, srv := range servers {
		targets := []struct {
			name   string
			dialer func(*testing.B) Dialer
		}{
			{"handler", func(*testing.B) Dialer { return Handler{Handler: srv.handler()} }},
			{"loopback", func(b *testing.B) Dialer {
				hs := httptest.NewServer(srv.handler())
				client := NewClient(0)
				b.Cleanup(func() { client.CloseIdleConnections(); hs.Close() })
				return HTTP{URL: hs.URL, Client: client}
			}},
			{"pipe", func(b *testing.B) Dialer { return srv.pipe(b) }},
		}
		for _, tc := range targets {
			b.Run("server="+srv.name+"/target="+tc.name, func(b *testing.B) {
				c, err := tc.dialer(b).Dial(b.Context(), "bench")
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				if srv.handshake {
					benchHandshake(b, c)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := c.Send(b.Context(), call); err != nil {
						b.Fatal(err)
					}
					if in, ok := <-c.Incoming(); !ok || !bytes.Contains(in.Msg, srv.want) {
						b.Fatalf("got %s (open %v), want the answer", in.Msg, ok)
					}
				}
			})
		}
	}
}

// benchHandshake sends initialize and notifications/initialized and
// takes the initialize answer.
func benchHandshake(b *testing.B, c Conn) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		if err := c.Send(b.Context(), []byte(msg)); err != nil {
			b.Fatal(err)
		}
	}
	<-c.Incoming()
}

func TestSplitBody(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{`{"a":1}`, []string{`{"a":1}`}, false},
		{" {\"a\":1}\n", []string{`{"a":1}`}, false},
		{`[{"a":1}, {"b":[2]} ,3]`, []string{`{"a":1}`, `{"b":[2]}`, `3`}, false},
		{`[]`, nil, false},
		{`[{"a":1}`, nil, true},
		{`not json`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := splitBody([]byte(tc.in))
			if (err != nil) != tc.err {
				t.Fatalf("got error %v, want error %v", err, tc.err)
			}
			var gs []string
			for _, g := range got {
				gs = append(gs, string(g))
			}
			if fmt.Sprint(gs) != fmt.Sprint(tc.want) {
				t.Errorf("got %q, want %q", gs, tc.want)
			}
		})
	}
}

// FuzzSplitBody checks the split of JSON answer bodies (outside input)
// against encoding/json.
func FuzzSplitBody(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,{"b":"]"},[[]]]`, `[]`, ` [ "x" ] `, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := splitBody(in)
		if err != nil {
			if json.Valid(in) {
				t.Fatalf("got error %v for valid JSON %q", err, in)
			}
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal(in, &arr) == nil {
			if len(got) != len(arr) {
				t.Fatalf("got %d messages, want %d", len(got), len(arr))
			}
			for i := range arr {
				if !bytes.Equal(got[i], bytes.TrimSpace(arr[i])) {
					t.Fatalf("element %d: got %q, want %q", i, got[i], arr[i])
				}
			}
			return
		}
		if len(got) != 1 || !json.Valid(got[0]) {
			t.Fatalf("got %q, want the one value", got)
		}
	})
}

func TestInspect(t *testing.T) {
	tests := []struct {
		in, method, id, pv string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "initialize", "1", ""},
		{`{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-06-18"}}`, "", `"a"`, "2025-06-18"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "notifications/initialized", "", ""},
		{`{"id":null,"error":{}}`, "", "", ""},
		{`[{"id":1}]`, "", "", ""},
		{`garbage`, "", "", ""},
	}
	for _, tc := range tests {
		mi := inspect([]byte(tc.in))
		if mi.method != tc.method || string(mi.id) != tc.id || protocolVersion(mi.result) != tc.pv {
			t.Errorf("inspect(%s): got %q %q %q, want %q %q %q", tc.in, mi.method, mi.id, protocolVersion(mi.result), tc.method, tc.id, tc.pv)
		}
	}
}
