package shrink_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// FuzzSimplifications: whatever a tape holds, each simplification is
// valid JSON, the same kind of JSON-RPC message with the same method and
// id, and shorter than the message it simplifies.
func FuzzSimplifications(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"c","arguments":{"mode":"boom","tags":["x","y"],"n":1.5e3,"ok":true,"z":null}}}`,
		`{"jsonrpc":"2.0","method":"n","params":{"s":"ééé<\"é","\u00e9":{"a":[[],{}]}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"m","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`,
		`{"params":{"x":"yy"},"jsonrpc":"2.0","method":"m"} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		orig, err := jsonrpc.ParseStrict(raw)
		if err != nil {
			return
		}
		for _, b := range shrink.Simplifications(raw) {
			if !json.Valid(b) {
				t.Fatalf("%s → %s: not JSON", raw, b)
			}
			m, err := jsonrpc.ParseStrict(b)
			if err != nil || m.Kind != orig.Kind || m.Method != orig.Method || string(m.ID) != string(orig.ID) {
				t.Fatalf("%s → %s: another message (%v)", raw, b, err)
			}
			if len(b) >= len(raw) {
				t.Fatalf("%s → %s: not shorter", raw, b)
			}
		}
	})
}

// FuzzGroup: every message of a tape is in exactly one unit, of its own
// session, in tape order.
func FuzzGroup(f *testing.F) {
	f.Add("c2s s1 {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\ns2c s1 {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"requestState\":\"s\"}}\nc2s s1 {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"requestState\":\"s\"}}")
	f.Add("c2s s1 {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\nc2s s2 {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\ns2c s1 {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"taskId\":\"t\"}}}\nc2s s1 {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"t\"}}")
	f.Fuzz(func(t *testing.T, doc string) {
		var msgs []tape.Message
		for i, line := range strings.Split(doc, "\n") {
			parts := strings.SplitN(line, " ", 3)
			if len(parts) != 3 {
				continue
			}
			msgs = append(msgs, tape.Message{Seq: int64(i), Dir: tape.Dir(parts[0]), Session: parts[1], Msg: []byte(parts[2])})
		}
		seen := map[int64]bool{}
		for _, u := range shrink.Group(msgs) {
			if !slices.IsSorted(u.Seqs) || len(u.Seqs) == 0 {
				t.Fatalf("unit %+v: seqs out of order or none", u)
			}
			for _, s := range u.Seqs {
				if seen[s] {
					t.Fatalf("seq %d in two units", s)
				}
				seen[s] = true
				if m := msgs[slices.IndexFunc(msgs, func(m tape.Message) bool { return m.Seq == s })]; m.Session != u.Session {
					t.Fatalf("seq %d of session %s in a unit of %s", s, m.Session, u.Session)
				}
			}
		}
		if len(seen) != len(msgs) {
			t.Fatalf("%d of %d messages in units", len(seen), len(msgs))
		}
	})
}
