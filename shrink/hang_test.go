package shrink_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// hanging is a target for the timeout tests: a Streamable HTTP MCP
// server in this process (replay.Handler, no port) that answers as
// ./planted does (initialize, then every tools/call with "ok NAME") but
// never answers a tools/call of tool with arguments.mode "slow": it holds
// the request until the client gives it up.
//
// Run the replays in a synctest bubble: the replay's timeout then runs on
// the bubble's clock, which moves only when every goroutine of the bubble
// is blocked, so only the call that is never answered can time out.
// Against a process (./planted had a -hang flag for this), the timeout bounds the process's
// start and its answer to initialize as well, which under load took
// longer than the test's 400 ms: the shrink then chased a timeout of
// initialize.
func hanging(tool string) replay.Option {
	return replay.Against(replay.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed) // no GET stream, no DELETE
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Mode string `json:"mode"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) != nil || m.ID == nil || m.Method == "" {
			w.WriteHeader(http.StatusAccepted) // notifications and answers
			return
		}
		result := `{}`
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"planted","version":"1"}}`
		case "tools/call":
			if m.Params.Name == tool && m.Params.Arguments.Mode == "slow" {
				<-r.Context().Done()
				return
			}
			result = fmt.Sprintf(`{"content":[{"type":"text","text":"ok %s"}]}`, m.Params.Name)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	})))
}

// TestHangingAnswers: the hanging server answers what ./planted answers
// and holds only the slow call of its tool, until the replay's timeout,
// on the bubble's clock, gives it up: initialize and 2 of 3 calls pass,
// 1 times out.
func TestHangingAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := []call{{"a", "x"}, {"d", "slow"}, {"d", "x"}}
		src := tape.Bytes("hang.jsonl", plantedTape(t, [][]call{calls}))
		rep, err := replay.RunSource(t.Context(), src, hanging("d"), replay.Timeout(400*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if v, p := rep.Validation, rep.Performance; v.Passed != 3 || v.Failed != 0 || p.Timeouts != 1 || p.Errors != 0 {
			t.Errorf("validation %+v, performance %+v: want initialize and 2 calls passed, 1 timed out", v, p)
		}
	})
}
