package replaytest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/replaytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// These tests use only what a project of its own would: replay and
// replaytest, and an MCP server to replay against (server-everything as a
// command, a go-sdk server in process).

const everything = "../examples/everything.jsonl"

// serverEverything is the pinned @modelcontextprotocol/server-everything
// (npm ci --prefix testdata).
func serverEverything(t *testing.T) replay.Target {
	t.Helper()
	bin, err := filepath.Abs("../testdata/node_modules/.bin/mcp-server-everything")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("server-everything is not installed: npm ci --prefix testdata")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return replay.Command(bin, "stdio")
}

// recorder is a testing.TB that keeps what a test would fail with.
type recorder struct {
	testing.TB
	errors []string
	logs   []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Error(args ...any)         { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Log(args ...any)           { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Logf(f string, a ...any)   { r.logs = append(r.logs, fmt.Sprintf(f, a...)) }
func (r *recorder) Failed() bool              { return len(r.errors) > 0 }

func TestAgainstServerEverything(t *testing.T) {
	rep := replaytest.Run(t, everything, replay.Against(serverEverything(t)))
	if rep == nil || rep.Validation.Checked != 28 {
		t.Errorf("report %v; want 28 checked answers", rep)
	}
}

func TestEditedTapeFailsPerMessage(t *testing.T) {
	b, err := os.ReadFile(everything)
	if err != nil {
		t.Fatal(err)
	}
	// Two recorded answers the server will not give again.
	edited := strings.Replace(string(b), `"Echo: message 3"`, `"Echo: message three"`, 1)
	edited = strings.Replace(edited, `"The sum of 5 and 10 is 15."`, `"The sum of 5 and 10 is 16."`, 1)
	path := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	rep := replaytest.Run(r, path, replay.Against(serverEverything(t)))
	if rep == nil || rep.Passed() {
		t.Fatalf("the edited tape passed: %v", r.errors)
	}
	want := []string{
		`seq 22 tools/call (session s1): failed` + "\n\t" + `sent: {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message 3"}}}` + "\n\t" + `result.content[0].text: expected "Echo: message three", got "Echo: message 3"`,
		`seq 32 tools/call (session s1): failed` + "\n\t" + `sent: {"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":5,"b":10}}}` + "\n\t" + `result.content[0].text: expected "The sum of 5 and 10 is 16.", got "The sum of 5 and 10 is 15."`,
	}
	if len(r.errors) != len(want) {
		t.Fatalf("%d errors, want %d:\n%s", len(r.errors), len(want), strings.Join(r.errors, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(r.errors[i], w) {
			t.Errorf("error %d:\n%s\nwant it to start with\n%s", i, r.errors[i], w)
		}
	}
	logs := strings.Join(r.logs, "\n")
	if !strings.Contains(logs, "FAIL") || !strings.Contains(logs, "report.json") {
		t.Errorf("logs do not hold the summary and the report's file:\n%s", logs)
	}
}

func TestBadOptionFailsTheTest(t *testing.T) {
	r := &recorder{TB: t}
	if rep := replaytest.Run(r, everything, replay.SpeedText("warp")); rep != nil || len(r.errors) != 1 || !strings.Contains(r.errors[0], "Speed") {
		t.Errorf("got %v and %q; want no report and one error naming Speed", rep, r.errors)
	}
}
