package serve_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/serve"
)

// betweenRequestsTape is a Streamable HTTP recording whose server asked
// roots/list on its own stream after notifications/initialized, while
// none of the client's requests was in flight (server-everything does,
// 350 ms after initialized), and whose client answered before its next
// request.
const betweenRequestsTape = `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-11-28T10:00:00Z","protocol_version":"2025-11-25","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}}
{"type":"message","seq":1,"t_us":1000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"type":"message","seq":2,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":3,"t_us":352000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}
{"type":"message","seq":4,"t_us":353000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///tmp","name":"tmp"}]}}}
{"type":"message","seq":5,"t_us":400000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":6,"t_us":401000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
{"type":"end","messages":7,"duration_us":401000}
`

// answeredLaterTape is a recording whose server asked roots/list after
// tools/list's answer, and whose client sent tools/call and had its
// answer before it answered the server (a busy client, as the
// TypeScript SDK's was under load).
const answeredLaterTape = `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-11-28T10:00:00Z","protocol_version":"2025-11-25","transport":"streamable-http"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}}
{"type":"message","seq":1,"t_us":1000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"type":"message","seq":2,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":3,"t_us":3000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":4,"t_us":4000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}}
{"type":"message","seq":5,"t_us":352000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}
{"type":"message","seq":6,"t_us":400000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}}
{"type":"message","seq":7,"t_us":401000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}
{"type":"message","seq":8,"t_us":402000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}}
{"type":"message","seq":9,"t_us":403000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"ping"}}
{"type":"message","seq":10,"t_us":404000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{}}}
{"type":"end","messages":11,"duration_us":404000}
`

// TestServeAsksBetweenRequests: a request the server recorded asking
// between the client's requests is asked at that point of the live
// session (after initialized here), on the session's own stream, not
// held for the next request's answer. A replay of the tape against the
// served tape, which waits for the live server to ask before it sends
// what the recording has after the client's answer, then answers it and
// sends every client message; before, serve asked only while answering
// tools/list, which the replay held until its timeout: the client's
// answer was skipped ("the live server did not ask roots/list").
//
// answered-later: the replay gets the ask before it reads the recorded
// answer to tools/call, and the recorded client answers it only after
// that answer; the replay keeps the ask for the client's recorded answer
// rather than refuse it there (before, it refused it and then waited its
// timeout for an ask that had come).
func TestServeAsksBetweenRequests(t *testing.T) {
	for _, tc := range []struct {
		name, tape string
		sent       int64
	}{
		{"after-initialized", betweenRequestsTape, 4},
		{"answered-later", answeredLaterTape, 6},
	} {
		t.Run(tc.name, func(t *testing.T) { serveAndReplay(t, tc.tape, tc.sent) })
	}
}

// serveAndReplay serves tape and replays it against what it serves; the
// replay must send sent client messages and pass, and serve miss
// nothing.
func serveAndReplay(t *testing.T, tapeText string, sent int64) {
	path := filepath.Join(t.TempDir(), "asks.jsonl")
	if err := os.WriteFile(path, []byte(tapeText), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	urls := make(chan string, 1)
	s, err := serve.New(path, serve.Listen("127.0.0.1:0"),
		serve.OnListening(func(a net.Addr) { urls <- "http://" + a.String() + "/mcp" }))
	if err != nil {
		t.Fatal(err)
	}
	type ran struct {
		res *serve.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := s.Run(ctx)
		done <- ran{res, err}
	}()
	var url string
	select {
	case url = <-urls:
	case r := <-done:
		t.Fatalf("serve: %v", r.err)
	}
	// The timeout bounds the wait for the ask when serve does not ask;
	// it is not a measure of anything.
	rep, err := replay.Run(ctx, path, replay.Against(replay.HTTP(url)), replay.WithSpeed(replay.Fast()), replay.Timeout(5*time.Second), replay.Logger(zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Summary.Sent, sent; got != want || !rep.Passed() {
		t.Errorf("replay sent %d client messages (passed %v), want %d: the client's answer to roots/list, too; errors %v", got, rep.Passed(), want, rep.Errors)
	}
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.MissCount != 0 {
		var reasons []string
		for _, m := range r.res.Misses {
			reasons = append(reasons, m.Reason)
		}
		t.Errorf("serve: %d misses: %s", r.res.MissCount, strings.Join(reasons, "; "))
	}
}
