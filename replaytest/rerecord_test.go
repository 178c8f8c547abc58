package replaytest_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/replaytest"
	"github.com/replayctl/replayctl/tape"
)

// changedSum is everythingInGo with get-sum off by one past 10.
func changedSum() *mcp.Server {
	s := everythingInGo()
	type sumIn struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get-sum", Description: "Returns the sum of two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, any, error) {
			sum := in.A + in.B
			if sum > 10 {
				sum++
			}
			text := fmt.Sprintf("The sum of %g and %g is %g.", in.A, in.B, sum)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	return s
}

// With REPLAYCTL_RERECORD=1, Run rewrites the tape it replays with what
// the server answers now, logging the changed answers instead of failing;
// unset, the rewritten tape replays clean against the changed server and
// fails against the old one where it changed.
func TestRerecordEnv(t *testing.T) {
	b, err := os.ReadFile(everything)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "everything.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	handler := func(s *mcp.Server) replay.Option {
		return replay.Against(replay.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)))
	}
	// The Node server's answers, against a Go server: the first
	// re-recording changes what the server says of itself too.
	t.Setenv(replaytest.RerecordEnv, "1")
	r := &recorder{TB: t}
	replaytest.Run(r, path, handler(changedSum()))
	if len(r.errors) != 0 {
		t.Fatalf("re-recording failed the test:\n%s", strings.Join(r.errors, "\n"))
	}
	if !hasLine(r.logs, "re-recorded "+path+": ") || !hasLine(r.logs, `"The sum of 4 and 8 is 12.", got "The sum of 4 and 8 is 13."`) {
		t.Errorf("logs:\n%s\nwant the re-recording and the changed sum logged", strings.Join(r.logs, "\n"))
	}
	if after, _ := os.ReadFile(path); string(after) == string(b) {
		t.Fatal("the tape was not rewritten")
	}
	if _, err := tape.Open(path); err != nil {
		t.Fatalf("the rewritten tape: %v", err)
	}

	t.Setenv(replaytest.RerecordEnv, "")
	rep := replaytest.Run(t, path, handler(changedSum()))
	if rep == nil || rep.Validation.Passed != 28 || rep.Validation.Failed != 0 {
		t.Errorf("the rewritten tape against the changed server: %+v; want 28 passed", rep.Validation)
	}
	r = &recorder{TB: t}
	replaytest.Run(r, path, handler(everythingInGo()))
	if len(r.errors) != 8 || !strings.Contains(r.errors[0], `expected "The sum of 4 and 8 is 13.", got "The sum of 4 and 8 is 12."`) {
		t.Errorf("the rewritten tape against the old server: %d errors, want the 8 sums over 10:\n%s", len(r.errors), strings.Join(r.errors, "\n"))
	}
}

// A value RerecordEnv does not take fails the test saying what it wants;
// a replay that stops early leaves the tape as it was.
func TestRerecordEnvStoppedEarly(t *testing.T) {
	b, err := os.ReadFile(everything)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "everything.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(replaytest.RerecordEnv, "true")
	r := &recorder{TB: t}
	replaytest.Run(r, path, replay.Against(replay.Command("sh", "-c", "read line; exit 3")))
	if !hasLine(r.errors, "stopped early, the tape is left as it was") {
		t.Errorf("errors:\n%s\nwant the early stop", strings.Join(r.errors, "\n"))
	}
	if after, _ := os.ReadFile(path); string(after) != string(b) {
		t.Error("the tape changed")
	}
}

func hasLine(lines []string, part string) bool {
	for _, l := range lines {
		if strings.Contains(l, part) {
			return true
		}
	}
	return false
}
