package tape

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

func exportPlaywright(t *testing.T, path string) []byte {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := EncodePlaywright(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var playwrightLine = regexp.MustCompile(`(?m)^    (?:await (?:call|notify)\(s, [0-9.]+, "(?:seq (\d+) )?|// seq (\d+) )`)

func TestPlaywrightExportNodeCheck(t *testing.T) {
	for _, path := range exportTapes {
		t.Run(filepath.Base(path), func(t *testing.T) {
			spec := exportPlaywright(t, path)
			nodeCheck(t, spec)
			want := clientMessages(t, path)
			lines := playwrightLine.FindAllSubmatch(spec, -1)
			if len(lines) != len(want) {
				t.Fatalf("%d lines for client messages, want one per client message: %d\n%s", len(lines), len(want), spec)
			}
			if tests := bytes.Count(spec, []byte("\ntest(\"session ")); tests != len(sessionsOf(want)) {
				t.Errorf("%d tests, want one per session: %d", tests, len(sessionsOf(want)))
			}
		})
	}
}

func sessionsOf(ms []Message) map[string]bool {
	s := map[string]bool{}
	for _, m := range ms {
		s[m.Session] = true
	}
	return s
}

// playwrightRun runs a spec with Playwright Test against url and returns
// its stats and the failures' messages. The spec goes into a folder
// under testdata/export, where it finds @playwright/test and the SDK.
func playwrightRun(t *testing.T, spec []byte, url string) (expected, unexpected int, errors string) {
	t.Helper()
	bin := nodeTool(t, ".bin/playwright")
	dir, err := os.MkdirTemp(filepath.Join(testserver.Root(t), "testdata", "export"), "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "replay.spec.mjs"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "test", "replay.spec.mjs", "--reporter=json", "--output", filepath.Join(dir, "results"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCP_URL="+url, "PLAYWRIGHT_HTML_OPEN=never")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output() // a failed test is status 1: the report says which
	var rep struct {
		Stats struct{ Expected, Unexpected int }
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("playwright report: %v\n%s\n%s", err, out, stderr.String())
	}
	return rep.Stats.Expected, rep.Stats.Unexpected, string(out)
}

// TestPlaywrightExportRuns runs the Playwright export of a
// server-everything tape under Node against server-everything over
// Streamable HTTP: it passes; with one answer recorded as an error, it
// fails at that request.
func TestPlaywrightExportRuns(t *testing.T) {
	testserver.NeedEverything(t)
	nodeTool(t, ".bin/playwright")
	url := testserver.EverythingHTTP(t)
	for _, path := range serverEverythingTapes {
		sessions := len(sessionsOf(clientMessages(t, path)))
		if ok, failed, report := playwrightRun(t, exportPlaywright(t, path), url); ok != sessions || failed != 0 {
			t.Errorf("playwright %s: %d passed, %d failed; want %d passed\n%s", path, ok, failed, sessions, report)
		}
	}
	ok, failed, report := playwrightRun(t, exportPlaywright(t, everythingWithOneError(t)), url)
	if ok != 0 || failed != 1 || !strings.Contains(report, "seq 56 tools/call") {
		t.Errorf("playwright on a tape with one answer changed to an error: %d passed, %d failed, want 1 failed at seq 56\n%s", ok, failed, report)
	}
}
