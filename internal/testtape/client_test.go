package testtape

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/tape"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRecordClientScriptAll records ScriptAll with the Go SDK client in
// both protocol revisions over both transports and checks each tape. With
// RECORD_OUT set to a folder, it also copies the tapes there as
// {2026,2025}-{stdio,http}.jsonl.
func TestRecordClientScriptAll(t *testing.T) {
	stdio := func(tb testing.TB) Target { return Stdio(testserver.GoSDK(tb)) }
	tests := []struct {
		name      string
		target    func(testing.TB) Target
		version   string // asked for; "" is the client's default
		transport string
		want      string // the protocol version agreed on
		flow      []string
	}{
		{"2026-stdio", stdio, "", TransportStdio, "2026-07-28", flow2026},
		// 2026-07-28 over HTTP needs the stateless server: a stateful one
		// does not offer it.
		{"2026-http", func(tb testing.TB) Target { return HTTP(testserver.GoSDKHTTPStateless(tb)) }, "", TransportHTTP, "2026-07-28", flow2026},
		{"2025-stdio", stdio, "2025-11-25", TransportStdio, "2025-11-25", flow2025},
		// Server-to-client requests need a stateful server over HTTP.
		{"2025-http", func(tb testing.TB) Target { return HTTP(testserver.GoSDKHTTP(tb)) }, "2025-11-25", TransportHTTP, "2025-11-25", flow2025},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := RecordClient(t, tc.target(t), tc.version, ScriptAll)
			h, msgs := readTape(t, path)
			if h.ProtocolVersion != tc.want {
				t.Errorf("got header protocol_version %q, want %q", h.ProtocolVersion, tc.want)
			}
			if h.Transport != tc.transport {
				t.Errorf("got header transport %q, want %q", h.Transport, tc.transport)
			}
			if h.Server == nil || (len(h.Server.Command) == 0 && h.Server.URL == "") {
				t.Errorf("got header server %+v, want a command or a URL", h.Server)
			}
			checkOrder(t, msgs)
			checkAnswers(t, msgs)
			if got := flow(msgs); !slices.Equal(got, tc.flow) {
				t.Errorf("got flow\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.flow, "\n\t"))
			}
			if dir := os.Getenv("RECORD_OUT"); dir != "" {
				copyTape(t, path, filepath.Join(dir, tc.name+".jsonl"))
			}
		})
	}
}

// The flows ScriptAll records, one line per message: direction, then the
// method and the name or URI of a request (+in when it carries
// inputResponses), or the resultType of an answer ("result" without one).
var (
	flowCommon = []string{
		"c2s tools/list", "s2c result",
		"c2s tools/call test_simple_text", "s2c result",
		"c2s tools/call test_x_mcp_header", "s2c result",
		"c2s tools/call test_tool_with_progress",
		"s2c notifications/progress", "s2c notifications/progress", "s2c notifications/progress",
		"s2c result",
		"c2s resources/list", "s2c result",
		"c2s resources/read test://static-text", "s2c result",
		"c2s resources/templates/list", "s2c result",
		"c2s resources/read test://template/42/data", "s2c result",
		"c2s prompts/list", "s2c result",
		"c2s prompts/get test_prompt_with_arguments", "s2c result",
	}
	flow2026 = slices.Concat(
		[]string{"c2s server/discover", "s2c complete"},
		complete(flowCommon),
		[]string{
			"c2s tools/call test_input_required_result_elicitation", "s2c input_required",
			"c2s tools/call test_input_required_result_elicitation +in", "s2c complete",
			"c2s tools/call test_input_required_result_sampling", "s2c input_required",
			"c2s tools/call test_input_required_result_sampling +in", "s2c complete",
			"c2s tools/call test_input_required_result_multi_round", "s2c input_required",
			"c2s tools/call test_input_required_result_multi_round +in", "s2c input_required",
			"c2s tools/call test_input_required_result_multi_round +in", "s2c complete",
		})
	flow2025 = slices.Concat(
		[]string{"c2s initialize", "s2c result", "c2s notifications/initialized"},
		flowCommon,
		[]string{
			"c2s tools/call test_input_required_result_elicitation",
			"s2c elicitation/create", "c2s result", "s2c result",
			"c2s tools/call test_input_required_result_sampling",
			"s2c sampling/createMessage", "c2s result", "s2c result",
			// go-sdk v1.8.0's server meets the input requests of an old
			// client for one round only: the second round's inputRequests
			// reach the client in a plain result, and its client answers
			// them with a retry, as on 2026-07-28.
			"c2s tools/call test_input_required_result_multi_round",
			"s2c elicitation/create", "c2s result", "s2c result",
			"c2s tools/call test_input_required_result_multi_round +in", "s2c result",
		})
)

// complete is flow with its results marked complete, as on 2026-07-28.
func complete(flow []string) []string {
	out := slices.Clone(flow)
	for i, s := range out {
		if s == "s2c result" {
			out[i] = "s2c complete"
		}
	}
	return out
}

// wire is what the checks read of a JSON-RPC message.
type wire struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name           string          `json:"name"`
		URI            string          `json:"uri"`
		InputResponses json.RawMessage `json:"inputResponses"`
	} `json:"params"`
	Result *struct {
		ResultType string `json:"resultType"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

type tapedMsg struct {
	tape.Message
	w wire
}

func readTape(t *testing.T, path string) (tape.Header, []tapedMsg) {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatalf("open the recorded tape: %v", err)
	}
	defer r.Close()
	if w := r.Warnings(); len(w) > 0 {
		t.Errorf("got warnings %q, want none", w)
	}
	var msgs []tapedMsg
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read the recorded tape: %v", err)
		}
		tm := tapedMsg{Message: m}
		if err := json.Unmarshal(m.Msg, &tm.w); err != nil {
			t.Fatalf("seq %d: %v: %s", m.Seq, err, m.Msg)
		}
		msgs = append(msgs, tm)
	}
	if r.End() == nil || r.End().Messages != int64(len(msgs)) {
		t.Errorf("got end line %+v, want one counting %d messages", r.End(), len(msgs))
	}
	return r.Header(), msgs
}

// checkOrder checks seq counts from 0 and t_us never goes back, all in
// session s1.
func checkOrder(t *testing.T, msgs []tapedMsg) {
	t.Helper()
	var last int64
	for i, m := range msgs {
		if m.Seq != int64(i) || m.TUS < last || m.Session != tapedSession {
			t.Errorf("message %d: got seq %d, t_us %d (the previous %d), session %q; want seq %d, t_us not smaller, session %q",
				i, m.Seq, m.TUS, last, m.Session, i, tapedSession)
		}
		last = m.TUS
	}
}

// checkAnswers checks every answer answers a request sent before it the
// other way and not answered yet, and every request is answered.
func checkAnswers(t *testing.T, msgs []tapedMsg) {
	t.Helper()
	pending := map[string]int64{} // dir of the request + id → seq
	for _, m := range msgs {
		switch {
		case m.w.Method != "" && len(m.w.ID) > 0:
			k := string(m.Dir) + " " + string(m.w.ID)
			if _, dup := pending[k]; dup {
				t.Errorf("seq %d: request id %s of %s is already in flight", m.Seq, m.w.ID, m.Dir)
			}
			pending[k] = m.Seq
		case m.w.Method == "":
			other := tape.C2S
			if m.Dir == tape.C2S {
				other = tape.S2C
			}
			k := string(other) + " " + string(m.w.ID)
			if _, ok := pending[k]; !ok {
				t.Errorf("seq %d: answer id %s matches no %s request in flight", m.Seq, m.w.ID, other)
			}
			delete(pending, k)
			if m.w.Error != nil {
				t.Errorf("seq %d: got error %s, want a result", m.Seq, m.w.Error)
			}
		}
	}
	for k, seq := range pending {
		t.Errorf("seq %d: request %s got no answer", seq, k)
	}
}

// flow is the tape as the flow lines the tests compare.
func flow(msgs []tapedMsg) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		s := string(m.Dir) + " "
		switch {
		case m.w.Method != "":
			s += m.w.Method
			if n := m.w.Params.Name + m.w.Params.URI; n != "" {
				s += " " + n
			}
			if m.w.Params.InputResponses != nil {
				s += " +in"
			}
		case m.w.Result != nil && m.w.Result.ResultType != "":
			s += m.w.Result.ResultType
		default:
			s += "result"
		}
		out = append(out, s)
	}
	return out
}

func copyTape(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Fatalf("copy the tape to RECORD_OUT: %v", err)
	}
	t.Logf("tape: %s", to)
}

// TestRecordClientEverythingStdio records a short go-sdk client session
// against server-everything over stdio, which does not exit when its stdin
// closes: the recording is whole all the same.
func TestRecordClientEverythingStdio(t *testing.T) {
	path := RecordClient(t, Stdio(testserver.Everything(t)), "", func(ctx context.Context, cs *mcp.ClientSession) error {
		_, err := cs.ListTools(ctx, nil)
		return err
	})
	_, msgs := readTape(t, path)
	for _, m := range msgs {
		if m.Dir == tape.S2C && strings.Contains(string(m.Msg), `"tools":[`) {
			return // the tools/list answer made it onto the tape
		}
	}
	t.Errorf("no tools/list answer among the %d messages of %s", len(msgs), path)
}
