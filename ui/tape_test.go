package ui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeTape writes a tape of sessions sessions, each its handshake then
// calls echo tools/calls gap µs apart, and a server notification after
// its first call; answer(session, i) is the text of an answer ("": the
// echo).
func writeTape(tb testing.TB, path string, sessions, calls int, gap int64, answer func(s, i int) string) string {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}`)
	seq := 0
	line := func(t int64, s int, dir, msg string) {
		fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s%d","dir":"%s","msg":%s}`+"\n", seq, t, s, dir, msg)
		seq++
	}
	for s := 1; s <= sessions; s++ {
		t0 := int64(s) * 10
		line(t0, s, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ui-test","version":"1"}}}`)
		line(t0+50, s, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"ui-test","version":"1"}}}`)
		line(t0+60, s, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for i := 1; i <= calls; i++ {
			t := t0 + int64(i)*gap
			text := fmt.Sprintf("Echo: message %d", i)
			if answer != nil {
				if a := answer(s, i); a != "" {
					text = a
				}
			}
			line(t, s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message %d"}}}`, i, i))
			if i == 1 {
				line(t+20, s, "s2c", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}`)
			}
			line(t+100, s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, i, text))
		}
	}
	fmt.Fprintf(w, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", seq, int64(sessions)*10+int64(calls)*gap+100)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// serve serves s on 127.0.0.1 until the test ends, and returns its page's
// address (token included).
func serve(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Serve did not return 30s after its context ended")
		}
	})
	return s.URL(ln)
}

func tempTape(t *testing.T, name string, sessions, calls int, gap int64, answer func(s, i int) string) string {
	return writeTape(t, filepath.Join(t.TempDir(), name), sessions, calls, gap, answer)
}

// listen listens on a free port of 127.0.0.1.
func listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
