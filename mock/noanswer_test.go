package mock

import (
	"os"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// TestServerUnansweredRecordedRequestIsAMiss: a tape whose recording
// ended before the server answered its last request (a killed record
// leaves every whole line) has that request without an answer. A live
// client asking it gets a CodeMiss error saying so, and the Server keeps
// the miss (--strict fails), in memory and read back from the file
// alike; the answered request before it is still answered.
func TestServerUnansweredRecordedRequestIsAMiss(t *testing.T) {
	const b = `{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}}
`
	for _, src := range []tape.Source{tape.Bytes("cut", []byte(b)), tape.File(writeTapeText(t, b))} {
		srv, err := NewServer(src)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := srv.Open(t.Context(), transport.SessionInfo{ID: "live"})
		if got := askOne(t, s, `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`); got != `{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}` {
			t.Errorf("tools/list got %s, want its recorded answer", got)
		}
		ans := askOne(t, s, `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"slow"}}`)
		if answered(t, ans) != "miss" || !strings.Contains(ans, "seq 2 of session s1) has no recorded answer") {
			t.Errorf("the unanswered recorded request got %s; want a CodeMiss error saying the tape has no answer for it", ans)
		}
		ms := srv.Misses()
		if len(ms) != 1 || !strings.Contains(ms[0].Reason, "seq 2") || ms[0].Recorded != "s1" {
			t.Errorf("misses %+v; want one, naming the recorded request seq 2 of s1", ms)
		}
		_ = s.Close()
	}
}

// writeTapeText writes a tape file holding text.
func writeTapeText(t *testing.T, text string) string {
	t.Helper()
	path := t.TempDir() + "/t.jsonl"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
