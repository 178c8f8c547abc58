package record

import (
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// TestVersionWatch: the version comes from the result answering
// initialize, or from the _meta of a stateless request (not
// server/discover) that got a result; a refused request teaches nothing;
// a session that starts work without either settles with none.
func TestVersionWatch(t *testing.T) {
	const (
		init25   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
		answer   = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`
		errAns   = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`
		inited   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		discover = `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		discAns  = `{"jsonrpc":"2.0","id":0,"result":{"supportedVersions":["2026-07-28"]}}`
		list26   = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		list     = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
		listAns  = `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`
		list2Err = `{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"header mismatch"}}`
		refused  = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`
		init2    = `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
		answer2  = `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25"}}`
		list26b  = `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		list3Ans = `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`
	)
	type step struct {
		dir tape.Dir
		msg string
	}
	c, s := tape.C2S, tape.S2C
	tests := []struct {
		name    string
		steps   []step
		settled int // the step that settles it, -1 for none
		want    string
	}{
		{"initialize", []step{{c, init25}, {c, inited}, {c, list}, {s, answer}}, 3, "2025-06-18"},
		{"stateless", []step{{c, discover}, {s, discAns}, {c, list26}, {s, listAns}}, 3, "2026-07-28"},
		// A refused stateless request teaches nothing; the next accepted one does.
		{"stateless refused, then accepted", []step{{c, list26}, {s, list2Err}, {c, list26b}, {s, list3Ans}}, 3, "2026-07-28"},
		// The go-sdk client against server-everything over HTTP: its
		// 2026 probe is refused with a null id, it falls back to initialize.
		{"refused discover, then initialize", []step{{c, discover}, {s, refused}, {c, init2}, {s, answer2}}, 3, "2025-11-25"},
		{"discover then initialize", []step{{c, discover}, {s, discAns}, {c, init25}, {s, answer}}, 3, "2025-06-18"},
		{"refused initialize, then work", []step{{c, init25}, {s, errAns}, {c, list}}, 2, ""},
		{"no handshake", []step{{s, inited}, {c, list}}, 1, ""},
		{"unanswered", []step{{c, init25}, {c, inited}}, -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v versionWatch
			got := -1
			for i, st := range tc.steps {
				if v.observe("s1", st.dir, []byte(st.msg)) && got < 0 {
					got = i
				}
			}
			if got != tc.settled || v.version != tc.want {
				t.Errorf("settled at step %d with %q, want step %d with %q", got, v.version, tc.settled, tc.want)
			}
		})
	}
}

// TestVersionWatchSessions: ids are told apart by session: another
// session's answer with the id of s1's initialize is not its answer.
func TestVersionWatchSessions(t *testing.T) {
	var v versionWatch
	steps := []struct {
		session string
		dir     tape.Dir
		msg     string
	}{
		{"s1", tape.C2S, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`},
		{"s2", tape.C2S, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"s2", tape.S2C, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05"}}`},
		{"s1", tape.S2C, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`},
	}
	for i, st := range steps {
		if settled := v.observe(st.session, st.dir, []byte(st.msg)); settled != (i == 3) {
			t.Fatalf("step %d: settled %v (version %q)", i, settled, v.version)
		}
	}
	if v.version != "2025-06-18" {
		t.Errorf("version %q, want s1's, 2025-06-18", v.version)
	}
}
