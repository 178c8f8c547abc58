package record

import (
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// TestVersionWatch: the version comes from the answer to initialize, or
// from the _meta of the first stateless request after server/discover;
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
		{"stateless", []step{{c, discover}, {s, discAns}, {c, list26}}, 2, "2026-07-28"},
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
				if v.observe(st.dir, []byte(st.msg)) && got < 0 {
					got = i
				}
			}
			if got != tc.settled || v.version != tc.want {
				t.Errorf("settled at step %d with %q, want step %d with %q", got, v.version, tc.settled, tc.want)
			}
		})
	}
}
