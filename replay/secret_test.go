package replay_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// echoHeaders is a Streamable HTTP handler whose tools/call answers with
// the request's Authorization and X-Api-Key headers.
func echoHeaders(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any = map[string]any{}
	switch msg.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "echo", "version": "0"}}
	case "tools/call":
		text := "auth " + r.Header.Get("Authorization") + " key " + r.Header.Get("X-Api-Key")
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
}

// headerTape is a session whose one tools/call was answered "auth none".
func headerTape() tape.Source {
	lines := []string{
		`{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http"}`,
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}}`,
		`{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"echo","version":"0"}}}}`,
		`{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
		`{"type":"message","seq":3,"t_us":30,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}}`,
		`{"type":"message","seq":4,"t_us":40,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"auth none"}]}}}`,
	}
	return tape.Bytes("headers", []byte(strings.Join(lines, "\n")+"\n"))
}

// A header's ${NAME} is a secret: the target receives it, and no result,
// hook or report shows it, in whatever form the server echoes it.
func TestHeaderValuesAreSecrets(t *testing.T) {
	const token = `tok/+é"<&>z`
	t.Setenv("REPLAYCTL_TEST_TOKEN", token)
	target := replay.Handler(http.HandlerFunc(echoHeaders)).
		WithHeader("Authorization", "Bearer ${REPLAYCTL_TEST_TOKEN}").
		WithHeader("X-Api-Key", "literal-key-77")
	var hooked []report.Result
	r, err := replay.New(headerTape(), replay.WithSpeed(replay.Fast()), replay.Against(target),
		replay.OnResult(func(res report.Result) { hooked = append(hooked, res) }))
	if err != nil {
		t.Fatal(err)
	}
	secrets := r.Secrets()
	for _, want := range []string{token, "Bearer " + token, "literal-key-77"} {
		if !slices.Contains(secrets, want) {
			t.Errorf("Secrets() = %q, want it to hold %q", secrets, want)
		}
	}
	rep, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Validation.Failed != 1 {
		t.Fatalf("failed %d, want 1 (the echoed token differs from the recording)", rep.Validation.Failed)
	}
	var all strings.Builder
	for _, res := range hooked {
		all.WriteString(res.Err + string(res.Answer) + string(res.Out))
		for _, d := range res.Differences {
			all.WriteString(d.String())
		}
	}
	if err := rep.WriteJSON(&all); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"tok/", `tok\/`, "literal-key-77"} {
		if strings.Contains(all.String(), leak) {
			t.Errorf("a result or the report shows %q:\n%s", leak, all.String())
		}
	}
	if !strings.Contains(all.String(), "auth [redacted] key [redacted]") {
		t.Errorf("want the echo with both values redacted:\n%s", all.String())
	}
}

func TestFollowRedirectsIsForHTTP(t *testing.T) {
	_, err := replay.New(headerTape(), replay.Against(replay.Command("true").WithFollowRedirects()))
	var oe *replay.OptionError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "WithFollowRedirects is for an HTTP target") {
		t.Errorf("got %v, want an OptionError naming WithFollowRedirects", err)
	}
}
