package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// TestMockTapeErrorMidway: a replay against the built-in mock of a tape
// with a bad line in its middle (the mock streams the tape to the
// replay, see openTape) fails with the tape's own error, its file and
// line, as a plain reader of the tape finds it, after the messages
// before it.
func TestMockTapeErrorMidway(t *testing.T) {
	path := writeTape(t, t.TempDir(), 2000, 10, nil)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const bad = 3001
	lines := strings.SplitAfter(string(body), "\n")
	lines = slices.Insert(lines, bad-1, "{\"type\":\"message\",\"seq\":\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := tape.OpenSource(tape.File(path))
	if err != nil {
		t.Fatal(err)
	}
	var want error
	for want == nil {
		_, want = r.Next()
	}
	r.Close()

	_, err = replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}})
	var te *tape.Error
	if !errors.As(err, &te) || te.Path != path || te.Line != bad || err.Error() != want.Error() {
		t.Errorf("replay: %v, want the tape's error at %s line %d: %v", err, path, bad, want)
	}
}

// TestMockTapeTornEnd: a replay against the built-in mock of a tape
// whose last line is torn fails with the tape's error, and blames none
// of the requests sent before it on the target: a request waiting for
// the mock's streamed read of the tape (here, pings: only the whole
// index answers those asked out of turn) is not answered with the read's
// error, which the report would count as the target's wrong answer.
func TestMockTapeTornEnd(t *testing.T) {
	const pings = 20000
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}` + "\n")
	seq := 0
	line := func(tUS int, dir, msg string) {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"%s","msg":%s}`+"\n", seq, tUS, dir, msg)
		seq++
	}
	line(0, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	line(10, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	line(20, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= pings; i++ {
		line(100*i, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
		line(100*i+50, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i))
	}
	fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":99999,"method":"ping"`+"\n", seq, 100*pings+100)
	path := filepath.Join(t.TempDir(), "torn.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	rep, err := replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}})
	var te *tape.Error
	if !errors.As(err, &te) || te.Path != path {
		t.Errorf("replay: %v, want the tape's error at %s", err, path)
	}
	if v := rep.Validation; v.Failed != 0 {
		t.Errorf("validation: %d passed, %d failed; want no failure: the answers before the torn line are the tape's", v.Passed, v.Failed)
	}
}
