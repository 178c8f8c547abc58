package tape

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// serverEverythingTapes are the tapes of server-everything that the
// exports replay against it: one session over stdio, and two at once over
// Streamable HTTP (SSE answers, 400s with null ids to a 2026 client's
// probes, notifications).
var serverEverythingTapes = []string{"../examples/everything.jsonl", "testdata/everything-http.jsonl"}

// exportTapes are the tapes every exporter is tested on: the examples
// (stdio) and an HTTP recording of server-everything with SSE answers.
var exportTapes = []string{"../examples/everything.jsonl", "../examples/go-sdk-2025.jsonl", "../examples/go-sdk-2026.jsonl",
	"../examples/quickstart.jsonl", "testdata/everything-http.jsonl"}

// clientMessages returns the client messages of the tape at path,
// session by session (in the order they first sent).
func clientMessages(t *testing.T, path string) []Message {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var order []string
	by := map[string][]Message{}
	for _, m := range readAll(t, r) {
		if m.Dir == C2S {
			if by[m.Session] == nil {
				order = append(order, m.Session)
			}
			by[m.Session] = append(by[m.Session], m)
		}
	}
	var out []Message
	for _, s := range order {
		out = append(out, by[s]...)
	}
	return out
}

func exportK6(t *testing.T, path string, opts ...ExportOption) []byte {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := EncodeK6(&b, r, opts...); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// nodeCheck runs `node --check` on script as an ES module, as k6 reads it.
func nodeCheck(t *testing.T, script []byte) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot check the script's syntax")
	}
	p := filepath.Join(t.TempDir(), "script.mjs")
	if err := os.WriteFile(p, script, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", p).CombinedOutput(); err != nil {
		t.Fatalf("node --check: %v\n%s", err, out)
	}
}

var k6Call = regexp.MustCompile(`(?m)^  call\(s, [0-9.]+, "seq (\d+) [^"]*", "[^"]*", "[^"]*", "(result|error|)", `)

func TestK6ExportNodeCheck(t *testing.T) {
	for _, path := range exportTapes {
		t.Run(filepath.Base(path), func(t *testing.T) {
			script := exportK6(t, path)
			nodeCheck(t, script)
			calls := k6Call.FindAllSubmatch(script, -1)
			want := clientMessages(t, path)
			if len(calls) != len(want) {
				t.Fatalf("%d calls, want one per client message: %d", len(calls), len(want))
			}
			for i, c := range calls {
				if got := string(c[1]); got != strconv.FormatInt(want[i].Seq, 10) {
					t.Errorf("call %d is seq %s, want %d", i, got, want[i].Seq)
				}
			}
		})
	}
}

// httpTape is a Streamable HTTP tape with two sessions, an error answer,
// an SSE answer, a credential header and a notification.
const httpTape = `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"streamable-http","server":{"url":"http://user:pw@127.0.0.1:9/mcp?token=abc"}}
{"type":"message","seq":0,"t_us":0,"session":"a","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}},"http":{"headers":{"Authorization":["Bearer s3cr3t"],"X-Trace":["t1"]}}}
{"type":"message","seq":1,"t_us":1000,"session":"a","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}},"http":{"status":200,"headers":{"Content-Type":["application/json"],"Mcp-Session-Id":["abc"]}}}
{"type":"message","seq":2,"t_us":2000,"session":"a","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"},"http":{"status":202}}
{"type":"message","seq":3,"t_us":2500000,"session":"b","dir":"c2s","msg":{"jsonrpc":"2.0","id":"x\"y","method":"tools/call","params":{"name":"nope"}}}
{"type":"message","seq":4,"t_us":2600000,"session":"b","dir":"s2c","msg":{"jsonrpc":"2.0","id":"x\"y","error":{"code":-32602,"message":"no tool"}},"sse":{"id":"e1"}}
{"type":"message","seq":5,"t_us":3000000,"session":"a","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list"}}
{"type":"message","seq":6,"t_us":3001000,"session":"a","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}}
`

func TestK6ExportSessionsChecksAndSecrets(t *testing.T) {
	path := writeTemp(t, "http.jsonl", httpTape)
	script := exportK6(t, path)
	nodeCheck(t, script)
	s := string(script)
	for _, secret := range []string{"s3cr3t", "pw@", "token=abc", "Authorization"} {
		if strings.Contains(s, secret) {
			t.Errorf("the script holds %q", secret)
		}
	}
	for _, want := range []string{
		`const URL = __ENV.MCP_URL || "http://user:redacted@127.0.0.1:9/mcp?token=redacted";`,
		`"session0": { executor: "per-vu-iterations", vus: 1, iterations: 1, maxDuration: "24h", startTime: "0.000ms", exec: "session0" }`,
		`"session1": { executor: "per-vu-iterations", vus: 1, iterations: 1, maxDuration: "24h", startTime: "2500.000ms", exec: "session1" }`,
		`  call(s, 0.000, "seq 0 initialize", "initialize", "1", "result", { "X-Trace": "t1" }, `,
		`  call(s, 2.000, "seq 2 notifications/initialized", "notifications/initialized", "", "", {}, `,
		`  call(s, 3000.000, "seq 5 tools/list", "tools/list", "2", "result", {}, `,
		`  call(s, 0.000, "seq 3 tools/call", "tools/call", "\"x\\\"y\"", "error", {}, `,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the script lacks %s\n%s", want, s)
		}
	}
	if a, b := strings.Index(s, "seq 5 tools/list"), strings.Index(s, "export function session1"); a < 0 || b < 0 || a > b {
		t.Errorf("session a's calls are not all in session0, before session1")
	}
	custom := string(exportK6(t, path, ExportURL("http://127.0.0.1:3001/other")))
	if !strings.Contains(custom, `const URL = __ENV.MCP_URL || "http://127.0.0.1:3001/other";`) {
		t.Errorf("ExportURL not used")
	}
}

// k6Run runs a script with k6 against url and returns its checks' passes
// and fails.
func k6Run(t *testing.T, k6 string, script []byte, url string) (passes, fails int) {
	t.Helper()
	dir := t.TempDir()
	js, summary := filepath.Join(dir, "script.js"), filepath.Join(dir, "summary.json")
	if err := os.WriteFile(js, script, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(k6, "run", "--quiet", "--no-usage-report", "-e", "MCP_URL="+url, "--summary-export", summary, js)
	out, _ := cmd.CombinedOutput() // failed checks do not fail the run: the summary says how many
	raw, err := os.ReadFile(summary)
	if err != nil {
		t.Fatalf("k6 wrote no summary: %v\n%s", err, out)
	}
	var sum struct {
		Metrics struct {
			Checks struct{ Passes, Fails int }
		}
	}
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatalf("k6 summary: %v", err)
	}
	return sum.Metrics.Checks.Passes, sum.Metrics.Checks.Fails
}

// TestK6ExportRunsAgainstEverything runs the k6 export of a
// server-everything tape with k6 against server-everything over
// Streamable HTTP: every check passes; with one answer recorded as an
// error, exactly one fails. k6 is not an npm or Debian package: it runs
// when k6 is in PATH or $REPLAYCTL_K6 names it (go install go.k6.io/k6@v1.8.1).
func TestK6ExportRunsAgainstEverything(t *testing.T) {
	k6 := os.Getenv("REPLAYCTL_K6")
	if k6 == "" {
		var err error
		if k6, err = exec.LookPath("k6"); err != nil {
			t.Skip("k6 is not installed: set REPLAYCTL_K6 or put k6 in PATH (go install go.k6.io/k6@v1.8.1)")
		}
	}
	testserver.NeedEverything(t)
	url := testserver.EverythingHTTP(t)
	for _, path := range serverEverythingTapes {
		n := len(clientMessages(t, path))
		if passes, fails := k6Run(t, k6, exportK6(t, path), url); passes != n || fails != 0 {
			t.Errorf("k6 %s: %d checks passed, %d failed; want %d passed", path, passes, fails, n)
		}
	}
	n := len(clientMessages(t, "../examples/everything.jsonl"))
	if passes, fails := k6Run(t, k6, exportK6(t, everythingWithOneError(t)), url); passes != n-1 || fails != 1 {
		t.Errorf("k6 on a tape with one answer changed to an error: %d checks passed, %d failed; want %d passed, 1 failed", passes, fails, n-1)
	}
}
