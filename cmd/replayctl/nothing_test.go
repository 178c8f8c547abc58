package main

// A file with no MCP traffic, or a run that checks nothing, is never a
// pass; an import that finds no MCP traffic writes nothing.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noMCPFiles are recordings that hold no MCP message, one per format:
// a HAR with no entries, a HAR of a web page's GET, an Agent VCR
// cassette with no interaction, a native tape with its header only.
func noMCPFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{
		"empty.har": `{"log":{"version":"1.2","creator":{"name":"devtools","version":"1"},"entries":[]}}`,
		"web.har": `{"log":{"version":"1.2","creator":{"name":"devtools","version":"1"},"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","time":1,
"request":{"method":"GET","url":"http://127.0.0.1:8080/","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"text/html"}],"cookies":[],"content":{"size":13,"mimeType":"text/html","text":"<html></html>"},"redirectURL":"","headersSize":-1,"bodySize":13},
"cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}`,
		"empty.vcr": `{"format_version":"1.0.0","metadata":{"version":"1.0.0","recorded_at":"2026-03-15T22:10:00Z","transport":"stdio"},"session":{"interactions":[]}}`,
		"header.jsonl": `{"type":"header","format":"replayctl-tape","version":1}
{"type":"end","messages":0,"duration_us":0}`,
	}
	dir := t.TempDir()
	paths := map[string]string{}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// TestRunNothingToReplayFails: a tape of any format with no MCP message
// exits 1, its summary naming the file; so does a run that sends a
// notification and checks nothing. They used to say "result PASS", exit 0.
func TestRunNothingToReplayFails(t *testing.T) {
	paths := noMCPFiles(t)
	paths["notification.log"] = writeTapeFile(t, "notification.log", `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			res := replayctl(t, "run", p, "--speed", "fast")
			if res.code != 1 || !strings.Contains(lineOf(res.stdout, "result"), "FAIL (nothing checked: ") || !strings.Contains(lineOf(res.stdout, "result"), "tape "+p) {
				t.Errorf("exit %d, want 1 and a FAIL naming %s:\n%s%s", res.code, p, res.stdout, res.stderr)
			}
			res = replayctl(t, "run", p, "--speed", "fast", "-o", "json")
			if res.code != 1 || !strings.Contains(lineOf(res.stdout, `"nothing_checked": "`), "tape "+p) || !strings.Contains(res.stdout, `"passed": false`) {
				t.Errorf("exit %d, want 1 and summary.nothing_checked naming %s:\n%s", res.code, p, res.stdout)
			}
		})
	}
}

// TestImportNoMCPTrafficWritesNothing: an import that finds no MCP
// message exits 2, says so naming the file (and what it skipped), and
// writes no tape. It used to write a tape of a header and an end.
func TestImportNoMCPTrafficWritesNothing(t *testing.T) {
	for name, p := range noMCPFiles(t) {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			res := replayctl(t, "import", p, out)
			if res.code != 2 || !strings.Contains(res.stderr, p+": no MCP message") {
				t.Errorf("exit %d, stderr %q: want 2 and %q", res.code, res.stderr, p+": no MCP message")
			}
			if name == "web.har" && !strings.Contains(res.stderr, "1 HAR entry skipped") {
				t.Errorf("stderr %q: want what was skipped", res.stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("an import of nothing left %s: %v", out, err)
			}
		})
	}
}

// lineOf is the first line of s that holds prefix after its indent, or "".
func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return l
		}
	}
	return ""
}
