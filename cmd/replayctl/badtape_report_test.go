package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// A native tape with a bad line early on, before anything is sent: run
// prints only the tape's error (exit 2), no empty report, as it does for
// a bad cassette.
func TestRunBadTapeNothingSent(t *testing.T) {
	testserver.NeedEverything(t)
	b, err := os.ReadFile("../../examples/everything.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[5] = `{"type":"message","seq":5,"bad` + "\n" // line 6, cut short
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", path, "--"}, testserver.Everything(t)...)
	res := replayctl(t, args...)
	if res.code != 2 || !strings.Contains(res.stderr, "line 6") {
		t.Errorf("exit %d, want 2 and the error of line 6:\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout, "sent") || strings.Contains(res.stdout, "result") {
		t.Errorf("run printed a report of a replay that sent nothing:\n%s", res.stdout)
	}
}

// A native tape whose bad line comes after thousands of messages: the
// replay has sent messages by the time the reader gets there (it reads
// ahead only so far), so its report is real and printed, then the error.
func TestRunBadTapeAfterSends(t *testing.T) {
	argv := testserver.GoSDK(t)
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}` + "\n")
	b.WriteString(`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
	seq := 3
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"ping"}}`+"\n", seq, 100*i, i)
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{}}}`+"\n", seq+1, 100*i+50, i)
		seq += 2
	}
	b.WriteString(`{"type":"message","seq":99999999,"bad` + "\n")
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", path, "--speed", "fast", "-o", "json", "--"}, argv...)
	res := replayctl(t, args...)
	if res.code != 2 || !strings.Contains(res.stderr, "cut short") {
		t.Errorf("exit %d, want 2 and the error of the last line:\n%s", res.code, res.stderr)
	}
	var rep jsonReport
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("no JSON report on stdout (%v):\n%.2000s", err, res.stdout)
	}
	if rep.Summary.Sent == 0 {
		t.Errorf("the report says nothing was sent; want the messages sent before the bad line")
	}
}
