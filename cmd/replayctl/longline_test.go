package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// longLineTape writes a tape of thousands of pings whose last answer is
// a line longer than limit: a replay that reads the tape only as it
// sends has sent thousands of messages by the time it gets there.
func longLineTape(t *testing.T, limit int) (path string, line int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}` + "\n")
	b.WriteString(`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}}` + "\n")
	b.WriteString(`{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
	seq, line := 3, 5
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"ping"}}`+"\n", seq, 100*i, i)
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{}}}`+"\n", seq+1, 100*i+50, i)
		seq, line = seq+2, line+2
	}
	fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":3000000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":99999,"method":"ping"}}`+"\n", seq)
	fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":3000050,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":99999,"result":{"text":"%s"}}}`+"\n", seq+1, strings.Repeat("x", limit))
	path = filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, line + 1
}

// A line longer than --max-line far down the tape is refused before
// anything is sent, as the tape's error (file, line, the flag to raise),
// exit 2: a live server gets nothing of a replay that cannot finish.
func TestRunLineTooLongBeforeSends(t *testing.T) {
	url := testserver.GoSDKHTTP(t)
	path, line := longLineTape(t, 64<<10)
	res := replayctl(t, "run", path, "--speed", "fast", "--max-line", "64KiB", "--target", url)
	want := fmt.Sprintf("tape %s line %d: the line is longer than the limit", path, line)
	if res.code != 2 || !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, "--max-line") {
		t.Errorf("exit %d, want 2 and %q naming --max-line:\n%s", res.code, want, res.stderr)
	}
	if strings.Contains(res.stdout, "sent") {
		t.Errorf("run sent messages before it found the long line:\n%.2000s", res.stdout)
	}
}

// Against the built-in mock the same tape's error is the tape's, not the
// mock's failing as a target.
func TestRunLineTooLongMock(t *testing.T) {
	path, line := longLineTape(t, 64<<10)
	res := replayctl(t, "run", path, "--speed", "fast", "--max-line", "64KiB")
	want := fmt.Sprintf("replayctl: tape %s line %d: the line is longer than the limit", path, line)
	if res.code != 2 || !strings.HasPrefix(res.stderr, want) || strings.Contains(res.stderr, "target failed") {
		t.Errorf("exit %d, want 2 and stderr starting %q, not a target failure:\n%s", res.code, want, res.stderr)
	}
	if strings.Contains(res.stdout, "sent") {
		t.Errorf("run printed a report:\n%.2000s", res.stdout)
	}
}
