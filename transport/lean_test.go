package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// rawServer is an HTTP/1.1 server on loopback whose answers are the
// bytes answer returns, written as they are: the lean client's input,
// malformed or not. Each request is read with net/http's parser (so a
// request the lean client writes wrong fails the test).
type rawServer struct {
	url   string
	conns atomic.Int32 // connections accepted
	reqs  atomic.Int32 // requests read
	// dropped counts the kept-alive connections a closeKept server
	// closed as a request arrived on them, unread.
	dropped atomic.Int32
	mu      sync.Mutex
	got     []*http.Request
}

// answerFunc is the answer to the n-th request (from 0), and whether to
// close the connection after it.
type answerFunc func(n int, req *http.Request, body []byte) (raw string, closeAfter bool)

func newRawServer(t *testing.T, answer answerFunc) *rawServer {
	t.Helper()
	return startRawServer(t, answer, false)
}

// startRawServer is newRawServer; with closeKept, each connection
// answers its first request only, and closes when the next request's
// first bytes arrive, without reading it: a keep-alive timeout that ends
// the connection just as the client sends on it, which no check of the
// connection before the send can see.
func startRawServer(t *testing.T, answer answerFunc, closeKept bool) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{url: "http://" + ln.Addr().String() + "/mcp"}
	var wg sync.WaitGroup
	var open sync.Map
	t.Cleanup(func() {
		ln.Close()
		open.Range(func(k, _ any) bool { k.(net.Conn).Close(); return true })
		wg.Wait()
	})
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			open.Store(nc, true)
			wg.Go(func() {
				defer nc.Close()
				br := bufio.NewReader(nc)
				for k := 0; ; k++ {
					if closeKept && k > 0 {
						if _, err := br.Peek(1); err == nil {
							s.dropped.Add(1)
						}
						return
					}
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, err := io.ReadAll(req.Body)
					if err != nil {
						t.Errorf("the request's body: %v", err)
						return
					}
					n := int(s.reqs.Add(1)) - 1
					s.mu.Lock()
					s.got = append(s.got, req)
					s.mu.Unlock()
					raw, closeAfter := answer(n, req, body)
					if _, err := io.WriteString(nc, raw); err != nil || closeAfter {
						return
					}
				}
			})
		}
	})
	return s
}

// newHoldingServer is a raw server that answers each request at once
// with jsonOK, except those hold picks (by their order n, from 0, and
// body): those it never answers, and it closes their connections when
// the test ends.
func newHoldingServer(t *testing.T, hold func(n int, body []byte) bool) *rawServer {
	release := make(chan struct{})
	srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
		if hold(n, body) {
			<-release
			return "", true
		}
		return jsonOK(jsonAnswer(idOf(body))), false
	})
	t.Cleanup(func() { close(release) }) // before the server's cleanup (LIFO)
	return srv
}

// idOf is the id of a JSON-RPC request's body, as its bytes.
func idOf(body []byte) string {
	return string(inspect(body).id)
}

func jsonAnswer(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"ok":true}}`
}

// jsonOK is a 200 answer with body b as application/json, sized by
// Content-Length.
func jsonOK(b string) string {
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(b), b)
}

func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

// TestLeanAnswers: the lean client reads each shape of answer a server
// may give — by Content-Length, chunked (with extensions and a trailer),
// an event stream, to the end of an HTTP/1.0 connection, gzip, after a
// 100 Continue, 202 to a notification — and keeps the connection alive
// when the answer lets it (one connection for all), and not when it does
// not (Connection: close, the end of the connection).
func TestLeanAnswers(t *testing.T) {
	cases := []struct {
		name   string
		answer func(id string) (string, bool)
		conns  int32 // connections for 3 calls and a notification
		// atMost: conns is a bound. An event stream's answer is
		// delivered before its end is read, so the next call may find
		// the connection still busy and open a second.
		atMost bool
	}{
		{"content-length", func(id string) (string, bool) {
			b := jsonAnswer(id)
			return jsonOK(b), false
		}, 1, false},
		{"chunked", func(id string) (string, bool) {
			b := jsonAnswer(id)
			return "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
				fmt.Sprintf("%x;ext=1\r\n%s\r\n", 7, b[:7]) + chunk(b[7:]) + "0\r\nX-Trailer: t\r\n\r\n", false
		}, 1, false},
		{"event stream", func(id string) (string, bool) {
			return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n" +
				chunk("id: 1\n\n") + chunk("event: message\ndata: "+jsonAnswer(id)+"\n\n") + "0\r\n\r\n", false
		}, 2, true},
		{"gzip", func(id string) (string, bool) {
			b := string(gzipped(jsonAnswer(id), 0))
			return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(b), b), false
		}, 1, false},
		{"100 continue first", func(id string) (string, bool) {
			b := jsonAnswer(id)
			return "HTTP/1.1 100 Continue\r\n\r\n" + jsonOK(b), false
		}, 1, false},
		{"connection close", func(id string) (string, bool) {
			b := jsonAnswer(id)
			return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(b), b), true
		}, 3, false},
		{"HTTP/1.0 to the end of the connection", func(id string) (string, bool) {
			return "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + jsonAnswer(id), true
		}, 3, false},
		{"closed after each answer, unannounced", func(id string) (string, bool) {
			b := jsonAnswer(id)
			return jsonOK(b), true
		}, 3, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
				if inspect(body).method == "notifications/initialized" || idOf(body) == "" {
					return "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", false
				}
				return tc.answer(idOf(body))
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := HTTP{URL: srv.url, Poster: PosterLean}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			c := conn.(*HTTPConn)
			if c.lean == nil {
				t.Fatal("the lean client is not used")
			}
			for i := range 3 {
				if i == 1 {
					if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)); err != nil {
						t.Fatalf("the notification: %v", err)
					}
				}
				if err := c.Send(ctx, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1))); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
				select {
				case in := <-c.Incoming():
					if want := jsonAnswer(fmt.Sprint(i + 1)); string(in.Msg) != want {
						t.Fatalf("call %d: got %s, want %s", i+1, in.Msg, want)
					}
				case <-ctx.Done():
					t.Fatalf("call %d: no answer", i+1)
				}
			}
			if got := srv.conns.Load(); got > tc.conns || (!tc.atMost && got != tc.conns) {
				t.Errorf("%d connections for 4 requests, want %d (one kept alive, or one more after each answer that ends its connection: the notification's 202 keeps it)", got, tc.conns)
			}
		})
	}
}

// TestLeanRequests: what the lean client writes is what net/http's
// client writes for a POST, as a server reads it: the method, path and
// query, Host, the user's headers (and not its Content-Type), the
// session id after initialize, Content-Length and the body.
func TestLeanRequests(t *testing.T) {
	for _, poster := range []Poster{PosterStd, PosterLean} {
		t.Run(string(poster), func(t *testing.T) {
			srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
				b := `{"jsonrpc":"2.0","id":` + idOf(body) + `,"result":{"protocolVersion":"2025-06-18"}}`
				return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: abc\r\nContent-Length: %d\r\n\r\n%s", len(b), b), false
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			h := http.Header{"X-Api-Key": {"k1"}, "Content-Type": {"text/plain"}}
			conn, err := HTTP{URL: srv.url + "?a=1", Header: h, Poster: poster}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			msgs := []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			}
			for _, m := range msgs {
				if err := conn.Send(ctx, []byte(m)); err != nil {
					t.Fatal(err)
				}
				<-conn.Incoming()
			}
			srv.mu.Lock()
			got := srv.got
			srv.mu.Unlock()
			conn.Close() // its DELETE is not looked at
			for i, req := range got[:2] {
				if req.Method != "POST" || req.URL.String() != "/mcp?a=1" || req.Host != strings.TrimPrefix(srv.url[:strings.LastIndex(srv.url, "/")], "http://") {
					t.Errorf("request %d: %s %s Host %s", i, req.Method, req.URL, req.Host)
				}
				for k, want := range map[string]string{"X-Api-Key": "k1", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"} {
					if v := req.Header.Get(k); v != want {
						t.Errorf("request %d: %s %q, want %q", i, k, v, want)
					}
				}
				if req.ContentLength != int64(len(msgs[i])) {
					t.Errorf("request %d: Content-Length %d, want %d", i, req.ContentLength, len(msgs[i]))
				}
			}
			if sid := got[0].Header.Get(HeaderSessionID); sid != "" {
				t.Errorf("initialize carried session id %q", sid)
			}
			if sid, pv := got[1].Header.Get(HeaderSessionID), got[1].Header.Get(HeaderProtocolVersion); sid != "abc" || pv != "2025-06-18" {
				t.Errorf("the request after initialize: session id %q, protocol version %q; want abc, 2025-06-18", sid, pv)
			}
		})
	}
}

// TestLeanServerClosedIdle: a kept-alive connection the server closed
// while it was idle (its keep-alive timeout) is found out when the next
// request is answered by nothing, and that request is sent again on a
// new connection, once. "as the request arrives": the server closes
// each kept connection only when the next request's bytes reach it,
// so every call after the first is sent on a live kept connection, lost,
// and only the retry answers it; dropped counts those retries.
func TestLeanServerClosedIdle(t *testing.T) {
	for _, tc := range []struct {
		name        string
		closeKept   bool  // close as the next request arrives, else after each answer
		wantDropped int32 // requests lost on a kept connection, each sent again
	}{
		{"after its answer", false, 0},
		{"as the request arrives", true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
				b := jsonAnswer(idOf(body))
				return jsonOK(b), !tc.closeKept
			}, tc.closeKept)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := HTTP{URL: srv.url, Poster: PosterLean}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for i := range 5 {
				if err := conn.Send(ctx, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if in := <-conn.Incoming(); string(in.Msg) != jsonAnswer(fmt.Sprint(i)) {
					t.Fatalf("call %d: got %s", i, in.Msg)
				}
			}
			if got := srv.reqs.Load(); got != 5 {
				t.Errorf("the server read %d requests for 5 calls, want 5 (a retry only of requests it never read)", got)
			}
			if got := srv.dropped.Load(); got != tc.wantDropped {
				t.Errorf("%d requests lost on a kept connection and sent again, want %d (each call after the first sent on the kept connection)", got, tc.wantDropped)
			}
		})
	}
}

// TestLeanMalformedAnswer: an answer that is not HTTP fails its Send with
// an error that says so; the connection is not kept.
func TestLeanMalformedAnswer(t *testing.T) {
	srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
		return "HTTP/1.1 abc what\r\n\r\n", true
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := HTTP{URL: srv.url, Poster: PosterLean}.Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err == nil || !strings.Contains(err.Error(), `malformed HTTP answer: status line "HTTP/1.1 abc what"`) || !strings.Contains(err.Error(), "POST "+srv.url) {
		t.Fatalf("got %v, want a malformed status line error naming the POST", err)
	}
}

// TestLeanReadHead: each malformed head or body is an error saying what
// was wrong, never a panic; well-formed ones read as net/http reads them.
func TestLeanReadHead(t *testing.T) {
	cases := []struct {
		name, in string
		wantErr  string // "" for none; else a part of the error
		body     string
	}{
		{"nothing", "", "closed the connection before answering", ""},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "malformed HTTP answer: status line", ""},
		{"status not a number", "HTTP/1.1 2x0 OK\r\n\r\n", "malformed HTTP answer: status line", ""},
		{"HTTP/2 status line", "HTTP/2 200\r\n\r\n", "malformed HTTP answer: status line", ""},
		{"header without colon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", `header line "NoColon"`, ""},
		{"space before colon", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "want \"Name: value\"", ""},
		{"headers cut", "HTTP/1.1 200 OK\r\nContent-Type: appl", "unexpected EOF", ""},
		{"line too long", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n", "longer than 4096 bytes", ""},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", `Content-Length "abc" is not a length`, ""},
		{"negative length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", `is not a length`, ""},
		{"body cut", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "unexpected EOF", ""},
		{"chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", `chunk size "zz"`, ""},
		{"chunk size huge", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("f", 20) + "\r\n", "want hex digits", ""},
		{"chunk cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", "unexpected EOF", ""},
		{"chunk without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", "not followed by CRLF", ""},
		{"no last chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", "unexpected EOF", ""},
		{"bad gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc", "unpacking the gzip body", ""},
		{"content length", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef", "", "abc"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1;x\r\nc\r\n0\r\n\r\n", "", "abc"},
		{"to the end", "HTTP/1.0 200 OK\r\n\r\nabc", "", "abc"},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\n", "", ""},
		{"LF only", "HTTP/1.1 200 OK\nContent-Length: 3\n\nabc", "", "abc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, err := readLean([]byte(tc.in))
			if tc.wantErr == "" {
				if err != nil || body != tc.body {
					t.Fatalf("got %q, %v; want %q, no error", body, err, tc.body)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

// readLean reads one answer from in as the lean client does: its head,
// then its body to the end (1 MB at most).
func readLean(in []byte) (string, error) {
	c := &leanConn{lc: &leanClient{open: map[*leanConn]struct{}{}}, br: bufio.NewReaderSize(bytes.NewReader(in), 4<<10)}
	var prev []headerLine
	for {
		resp, err := readHead(c.br, &prev)
		if err != nil {
			return "", err
		}
		if resp.StatusCode >= 200 {
			b, err := io.ReadAll(io.LimitReader(newLeanBody(c, resp), 1<<20))
			return string(b), err
		}
	}
}

func FuzzLeanAnswer(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\nT: 1\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8b"))
	f.Add([]byte("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = readLean(in)
		// Twice over one connection's reader: the second answer shares
		// the first's header lines where they are the same bytes.
		c := &leanConn{lc: &leanClient{open: map[*leanConn]struct{}{}}, br: bufio.NewReaderSize(bytes.NewReader(append(append([]byte{}, in...), in...)), 4<<10)}
		var prev []headerLine
		for range 2 {
			resp, err := readHead(c.br, &prev)
			if err != nil {
				return
			}
			if _, err := io.ReadAll(io.LimitReader(newLeanBody(c, resp), 1<<20)); err != nil {
				return
			}
		}
	})
}

// TestLeanRealServers: the lean client against the real servers
// (server-everything's Streamable HTTP, which answers with event
// streams, and the go-sdk conformance server): the handshake, a call,
// notifications (202), and the session's connection kept alive.
func TestLeanRealServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, tc := range []struct {
		name string
		url  func(testing.TB) string
		tool string
		args string
		want string
	}{
		{"server-everything", testserver.EverythingHTTP, "echo", `{"message":"lean"}`, "Echo: lean"},
		{"go-sdk conformance", testserver.GoSDKHTTP, "test_simple_text", `{}`, "simple text response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "server-everything" {
				testserver.NeedEverything(t)
			}
			url := tc.url(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := HTTP{URL: url, Poster: PosterLean}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			c := conn.(*HTTPConn)
			answer := func(id int) string {
				for {
					select {
					case in, ok := <-c.Incoming():
						if !ok {
							t.Fatalf("the connection ended: %v", c.Err())
						}
						if idOf(in.Msg) == fmt.Sprint(id) {
							return string(in.Msg)
						}
					case <-ctx.Done():
						t.Fatalf("no answer to %d", id)
					}
				}
			}
			send := func(m string) {
				t.Helper()
				if err := c.Send(ctx, []byte(m)); err != nil {
					t.Fatal(err)
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if a := answer(1); !strings.Contains(a, `"protocolVersion"`) {
				t.Fatalf("initialize answered %s", a)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for i := 2; i < 12; i++ {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i, tc.tool, tc.args))
				if a := answer(i); !strings.Contains(a, tc.want) {
					t.Fatalf("call %d answered %s, want %q in it", i, a, tc.want)
				}
			}
			if c.SessionID() == "" {
				t.Error("no session id kept")
			}
			c.lean.mu.Lock()
			open := len(c.lean.open)
			c.lean.mu.Unlock()
			// An event stream's answer is delivered before its end is
			// read: the next request may find its connection busy.
			if open < 1 || open > 6 || c.redirected.Load() {
				t.Errorf("%d lean connections open after 12 requests one after another, want 1 to 6 (kept alive)", open)
			}
		})
	}
}

// TestSendByDeadline: SendBy's deadline ends a send whose answer's
// headers do not come, with an error wrapping context.DeadlineExceeded,
// through either poster.
func TestSendByDeadline(t *testing.T) {
	for _, poster := range []Poster{PosterStd, PosterLean} {
		t.Run(string(poster), func(t *testing.T) {
			srv := newHoldingServer(t, func(int, []byte) bool { return true }) // never answers
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := HTTP{URL: srv.url, Poster: poster}.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			err = conn.(DeadlineSender).SendBy(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), time.Now().Add(100*time.Millisecond))
			if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				t.Fatalf("got %v, want an error wrapping context.DeadlineExceeded before the test's own timeout", err)
			}
		})
	}
}

// sendKey marks the context of a test's send, to tell the dials made
// on its path from those made ahead.
type sendKey struct{}

// spareRig is a lean HTTP connection with one spare (HTTP.Spare: 1) to
// a loopback server that holds the answers to the calls hold picks (by
// their order n, from 0) until release, and tells of each on reached;
// the client's dials are counted, and those made on a send's path (its
// context marked with sendKey) too.
type spareRig struct {
	ctx           context.Context
	conn          Conn
	reached       chan int
	release       func()
	onPath, dials atomic.Int32
	// dialing, when set, is called before each dial with its number
	// (from 1): an error fails the dial.
	dialing func(ctx context.Context, n int32) error
}

func newSpareRig(t *testing.T, hold func(n int) bool, opts ...func(*spareRig)) *spareRig {
	t.Helper()
	r := &spareRig{reached: make(chan int, 8)}
	for _, o := range opts {
		o(r)
	}
	held := make(chan struct{})
	srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
		if hold(n) {
			r.reached <- n
			<-held
		}
		b := jsonAnswer(idOf(body))
		return jsonOK(b), false
	})
	var once sync.Once
	r.release = func() { once.Do(func() { close(held) }) }
	t.Cleanup(r.release) // before the server's cleanup (LIFO)
	d := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		n := r.dials.Add(1)
		if ctx.Value(sendKey{}) != nil {
			r.onPath.Add(1)
		}
		if r.dialing != nil {
			if err := r.dialing(ctx, n); err != nil {
				return nil, err
			}
		}
		return d.DialContext(ctx, network, addr)
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	r.ctx = ctx
	conn, err := HTTP{URL: srv.url, Poster: PosterLean, Client: client, Spare: 1}.Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r.conn = conn
	return r
}

// call is a ping with id.
func (r *spareRig) call(id int) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
}

// answer takes the next answer, which must be id's.
func (r *spareRig) answer(t *testing.T, id int) {
	t.Helper()
	takeAnswer(t, r.ctx, r.conn, id)
}

// takeAnswer takes conn's next answer, which must be id's, failing t if
// none comes before ctx is done.
func takeAnswer(t *testing.T, ctx context.Context, conn Conn, id int) {
	t.Helper()
	select {
	case in := <-conn.Incoming():
		if got := idOf(in.Msg); got != fmt.Sprint(id) {
			t.Fatalf("got the answer to %s, want %d's", got, id)
		}
	case <-ctx.Done():
		t.Fatalf("no answer to %d", id)
	}
}

// TestLeanSpareConn: with HTTP.Spare, a request sent while the one
// before it still waits for its answer (the open model, --order none)
// takes a connection dialed ahead: no dial is made on its send's path.
// Without a spare the lean client dialed a new connection there, which
// took ~40 ms in 1 of 3 runs at 10x (BENCHMARKS.md, issue 24).
func TestLeanSpareConn(t *testing.T) {
	r := newSpareRig(t, func(n int) bool { return n == 1 }) // the second call's answer is held
	ctx, conn := r.ctx, r.conn
	// Warm-up: the first call dials (on its path: nothing is open yet).
	if err := conn.Send(ctx, r.call(1)); err != nil {
		t.Fatal(err)
	}
	r.answer(t, 1)
	second := make(chan error, 1)
	go func() { second <- conn.Send(ctx, r.call(2)) }()
	<-r.reached
	// The second call is in flight, its answer held: the third is sent
	// beside it, with a context that marks its path's dials.
	if err := conn.Send(context.WithValue(ctx, sendKey{}, true), r.call(3)); err != nil {
		t.Fatal(err)
	}
	r.answer(t, 3)
	r.release()
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	r.answer(t, 2)
	if n := r.onPath.Load(); n != 0 {
		t.Errorf("%d dials on the path of a send made beside one in flight (of %d dials), want 0: it takes the spare", n, r.dials.Load())
	}
}

// TestLeanSpareDialUnderWay: a send that finds every connection busy
// while the spare is still being dialed waits for that dial rather than
// dial one more on its own path (the third call may find the spare
// dialed already or wait for it: no dial on its path either way); and a
// dial ahead that never completes ends when the connection is closed
// (goleak checks its goroutine).
func TestLeanSpareDialUnderWay(t *testing.T) {
	ahead := make(chan struct{}) // the first dial ahead waits for it
	started := make(chan struct{}, 4)
	r := newSpareRig(t, func(n int) bool { return n == 1 }, func(r *spareRig) {
		r.dialing = func(ctx context.Context, n int32) error {
			switch {
			case n == 2: // the first dial ahead
				started <- struct{}{}
				select {
				case <-ahead:
				case <-ctx.Done():
					return ctx.Err()
				}
			case n >= 3: // later dials ahead never complete
				started <- struct{}{}
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}
	})
	ctx, conn := r.ctx, r.conn
	if err := conn.Send(ctx, r.call(1)); err != nil {
		t.Fatal(err)
	}
	<-conn.Incoming()
	<-started // the spare's dial is under way, held by the test
	second := make(chan error, 1)
	go func() { second <- conn.Send(ctx, r.call(2)) }()
	<-r.reached
	third := make(chan error, 1)
	go func() { third <- conn.Send(context.WithValue(ctx, sendKey{}, true), r.call(3)) }()
	close(ahead) // the spare is dialed: the third call takes it
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	r.release()
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if n := r.onPath.Load(); n != 0 {
		t.Errorf("%d dials on the third call's path while the spare was being dialed, want 0", n)
	}
	<-started // the next spare's dial, which never completes
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLeanSpareConnAsync: a request handed to an idle connection
// (SendAsync, the engine's path for a request it does not wait for)
// keeps the spare as a send does: taking the last idle connection starts
// a dial ahead, so that a send made while every connection carries a
// held answer does not dial on its own path.
func TestLeanSpareConnAsync(t *testing.T) {
	r := newSpareRig(t, func(n int) bool { return n == 1 || n == 2 }) // calls 2 and 3 are held
	ctx, conn := r.ctx, r.conn
	hc := conn.(*HTTPConn)
	// Warm-up: the first call dials on its path and starts the spare's
	// dial; its answer puts its connection back beside the spare.
	if err := conn.Send(ctx, r.call(1)); err != nil {
		t.Fatal(err)
	}
	r.answer(t, 1)
	done := make(chan error, 2)
	for id := 2; id <= 3; id++ {
		// Each takes an idle connection (waiting for the spare's dial
		// if it is still under way) and holds it with its answer.
		for !hc.SendAsync(ctx, r.call(id), time.Time{}, func(err error) { done <- err }) {
			if ctx.Err() != nil {
				t.Fatalf("call %d was never taken by an idle connection", id)
			}
			runtime.Gosched()
		}
		<-r.reached
	}
	// Both connections carry a held answer: the fourth is sent beside
	// them, with a context that marks its path's dials.
	if err := conn.Send(context.WithValue(ctx, sendKey{}, true), r.call(4)); err != nil {
		t.Fatal(err)
	}
	r.answer(t, 4)
	r.release()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]bool{}
	for range 2 {
		select {
		case in := <-conn.Incoming():
			got[idOf(in.Msg)] = true
		case <-ctx.Done():
			t.Fatal("no answers to 2 and 3")
		}
	}
	if !got["2"] || !got["3"] {
		t.Fatalf("answers %v, want 2 and 3", got)
	}
	if n := r.onPath.Load(); n != 0 {
		t.Errorf("%d dials on the path of a send made beside two handed-over calls (of %d dials), want 0: taking the last idle connection dials a spare ahead", n, r.dials.Load())
	}
}

// TestLeanSendsDialBesideOneDialAhead: sends that find no idle connection
// while one spare is being dialed do not all wait for that one dial:
// one waits for it, the others dial on their own paths at once, so that K
// sends needing a connection take one dial's time, not K (a remote
// target's round trip each).
func TestLeanSendsDialBesideOneDialAhead(t *testing.T) {
	ahead := make(chan struct{}) // the first dial ahead waits for it
	var aheadOnce sync.Once
	unblock := func() { aheadOnce.Do(func() { close(ahead) }) }
	t.Cleanup(unblock)
	started := make(chan struct{}, 1)
	r := newSpareRig(t, func(n int) bool { return n == 1 }, func(r *spareRig) {
		r.dialing = func(ctx context.Context, n int32) error {
			if n != 2 { // the first dial ahead
				return nil
			}
			started <- struct{}{}
			select {
			case <-ahead:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	ctx, conn := r.ctx, r.conn
	call := r.call
	release := r.release
	if err := conn.Send(ctx, call(1)); err != nil {
		t.Fatal(err)
	}
	<-conn.Incoming()
	<-started // the spare's dial is under way, held by the test
	second := make(chan error, 1)
	go func() { second <- conn.Send(ctx, call(2)) }()
	<-r.reached // the only open connection carries call 2, its answer held
	const k = 3
	sent := make(chan error, k)
	marked := context.WithValue(ctx, sendKey{}, true)
	for id := 3; id < 3+k; id++ {
		go func() { sent <- conn.Send(marked, call(id)) }()
	}
	// k-1 of them are answered while the one dial ahead is held (each
	// dialed on its path, or took a connection one of those put back).
	bound := time.NewTimer(10 * time.Second)
	defer bound.Stop()
	got := 0
wait:
	for got < k-1 {
		select {
		case err := <-sent:
			if err != nil {
				t.Fatal(err)
			}
			got++
		case <-bound.C:
			break wait
		}
	}
	unblock()
	for range k - got {
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
	}
	release()
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if got != k-1 {
		t.Errorf("%d of %d sends were answered while one dial ahead was under way, want %d: the others queued behind that one dial", got, k, k-1)
	}
}
