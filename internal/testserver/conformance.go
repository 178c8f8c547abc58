package testserver

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// conformanceTimeout bounds one run of a conformance scenario (a cold
// node start on a busy machine included).
const conformanceTimeout = 2 * time.Minute

// ConformanceCheck is one check of a scenario of the MCP conformance
// suite, as its checks.json says it.
type ConformanceCheck struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// Conformance runs scenario of the MCP conformance suite
// (@modelcontextprotocol/conformance, the version testdata/package.json
// pins) against the server at url, and returns its checks, whether they
// passed or not. It fails the test when the suite is not installed or
// did not run. The suite runs under testdata/conformance/register.mjs,
// which lets it start on Node.js 20 (see there).
func Conformance(t testing.TB, url, scenario string) []ConformanceCheck {
	t.Helper()
	root := Root(t)
	main := filepath.Join(root, "testdata", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(main); err != nil {
		t.Fatalf("testserver: the MCP conformance suite is missing (%s): run `npm ci --prefix testdata` (make test does it)", main)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("testserver: node is not in PATH; the MCP conformance suite needs Node.js 20 or later")
	}
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), conformanceTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "--import", filepath.Join(root, "testdata", "conformance", "register.mjs"),
		main, "server", "--url", url, "--scenario", scenario, "-o", out)
	cmd.Dir = root
	text, err := cmd.CombinedOutput() // exit 1 when a check failed: the checks say which
	files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("testserver: conformance scenario %s against %s left %d checks.json files (%v)\n%s", scenario, url, len(files), err, text)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []ConformanceCheck
	if err := json.Unmarshal(raw, &checks); err != nil || len(checks) == 0 {
		t.Fatalf("testserver: conformance scenario %s: checks.json: %v\n%s", scenario, err, raw)
	}
	return checks
}
