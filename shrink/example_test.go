package shrink_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// A tape of three sessions replayed against a newer recording of the
// same calls (the built-in mock answers from it), where one answer
// changed: the shrink keeps the call whose answer differs, and the
// handshake of its session.
func Example() {
	dir, _ := os.MkdirTemp("", "shrink-example-")
	defer os.RemoveAll(dir)
	write := func(name, changed string) string {
		var b strings.Builder
		b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18"}` + "\n")
		seq := 0
		add := func(session, dir, msg string) {
			fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":%q,"dir":%q,"msg":%s}`+"\n", seq, seq*100, session, dir, msg)
			seq++
		}
		for _, s := range []string{"s1", "s2", "s3"} {
			add(s, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
			add(s, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"y","version":"1"}}}`)
			add(s, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for i, tool := range []string{"search", "fetch", "summarize"} {
				text := "ok " + tool
				if s == "s2" && tool == "fetch" {
					text = changed
				}
				add(s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"q":"mcp"}}}`, i+1, tool))
				add(s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, i+1, text))
			}
		}
		path := filepath.Join(dir, name)
		_ = os.WriteFile(path, []byte(b.String()), 0o644)
		return path
	}
	old, newer := write("old.jsonl", "ok fetch"), write("new.jsonl", "fetch failed")

	res, err := shrink.Shrink(context.Background(), tape.File(old),
		shrink.Replay(replay.Against(replay.MockTape(newer))), shrink.NoSimplify())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Failure)
	fmt.Printf("before: %d messages; after: %d\n", res.Before.Messages, res.After.Messages)
	for _, u := range res.Units {
		fmt.Println(strings.TrimSpace(u.Session + " " + u.Method + " " + u.Name))
	}
	fmt.Printf("proof: %d of %d\n", res.Proof.Failed, res.Proof.Runs)
	// Output:
	// difference at result.content[0].text at s2 seq 14 (tools/call fetch)
	// before: 27 messages; after: 5
	// s2 initialize
	// s2 notifications/initialized
	// s2 tools/call fetch
	// proof: 10 of 10
}
