package tape

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

func exportPostman(t *testing.T, path string, opts ...ExportOption) string {
	t.Helper()
	return exportFile(t, path, "collection.json", EncodePostman, opts...)
}

// nodeTool returns the path of a tool testdata/package.json installs, or
// skips the test when it (or node) is not there.
func nodeTool(t *testing.T, rel string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	p := filepath.Join(testserver.Root(t), "testdata", "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed: run `npm ci --prefix testdata`", p)
	}
	return p
}

// postmanRead is what testdata/export/postman-check.js read of a collection
// with Postman's own library.
type postmanRead struct {
	Schema    string            `json:"schema"`
	Variables map[string]string `json:"variables"`
	Requests  []struct {
		Folder, Name, Method, URL, Body, Prerequest, Test string
		Headers                                           map[string]string
	} `json:"requests"`
}

func readPostman(t *testing.T, collection string) postmanRead {
	t.Helper()
	nodeTool(t, "postman-collection")
	script := filepath.Join(testserver.Root(t), "testdata", "export", "postman-check.js")
	out, err := exec.Command("node", script, collection).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("postman-collection cannot read the export: %v\n%s", err, stderr)
	}
	var got postmanRead
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("postman-check.js: %v\n%s", err, out)
	}
	return got
}

func TestPostmanExportParses(t *testing.T) {
	for _, path := range exportTapes {
		t.Run(filepath.Base(path), func(t *testing.T) {
			got := readPostman(t, exportPostman(t, path))
			want := clientMessages(t, path)
			if got.Schema != PostmanSchema {
				t.Errorf("schema %q, want %q", got.Schema, PostmanSchema)
			}
			if len(got.Requests) != len(want) {
				t.Fatalf("%d requests, want one per client message: %d", len(got.Requests), len(want))
			}
			for i, m := range want {
				q := got.Requests[i]
				if q.Folder != "session "+m.Session || q.Method != "POST" || q.URL != "{{mcpUrl}}" || q.Body != string(m.Msg) {
					t.Errorf("request %d: %s %s %s in %q, body %s; want seq %d of session %s, body %s", i, q.Name, q.Method, q.URL, q.Folder, q.Body, m.Seq, m.Session, m.Msg)
				}
				if !strings.Contains(q.Prerequest, `pm.collectionVariables.get("mcpSessionId_`) || !strings.Contains(q.Test, "pm.test(") {
					t.Errorf("request %d: scripts lack the session id or the check:\n%s\n%s", i, q.Prerequest, q.Test)
				}
			}
		})
	}
}

func TestPostmanExportSessionsAndSecrets(t *testing.T) {
	path := writeTemp(t, "http.jsonl", httpTape)
	file := exportPostman(t, path)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cr3t", "pw@", "token=abc", "Authorization"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the collection holds %q", secret)
		}
	}
	got := readPostman(t, file)
	if u := got.Variables["mcpUrl"]; u != "http://user:redacted@127.0.0.1:9/mcp?token=redacted" {
		t.Errorf("mcpUrl %q", u)
	}
	var names []string
	for _, q := range got.Requests {
		names = append(names, q.Folder+"/"+q.Name)
	}
	if want := "session a/seq 0 initialize,session a/seq 2 notifications/initialized,session a/seq 5 tools/list,session b/seq 3 tools/call"; strings.Join(names, ",") != want {
		t.Errorf("requests %s, want %s", strings.Join(names, ","), want)
	}
	if h := got.Requests[0].Headers["x-trace"]; h != "t1" {
		t.Errorf("recorded header X-Trace %q, want t1", h)
	}
	if !strings.Contains(got.Requests[0].Test, `pm.collectionVariables.set("mcpSessionId_0", sid)`) ||
		!strings.Contains(got.Requests[3].Prerequest, `pm.collectionVariables.get("mcpSessionId_1")`) {
		t.Errorf("the session id is not kept per session")
	}
	if !strings.Contains(got.Requests[2].Prerequest, "setTimeout(function () {}, 2998);") {
		t.Errorf("no recorded pause before seq 5:\n%s", got.Requests[2].Prerequest)
	}
	if !strings.Contains(got.Requests[3].Test, `const want = "error", idText = "\"x\\\"y\"";`) {
		t.Errorf("seq 3 is not checked for its recorded error:\n%s", got.Requests[3].Test)
	}
}

// newmanRun runs a collection with newman against url and returns its
// run's stats: requests and assertions, total and failed.
func newmanRun(t *testing.T, collection, url string) (requests, failedRequests, assertions, failed int) {
	t.Helper()
	bin := nodeTool(t, ".bin/newman")
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(bin, "run", collection, "--env-var", "mcpUrl="+url, "--reporters", "json", "--reporter-json-export", report, "--timeout-request", "30000")
	out, _ := cmd.CombinedOutput() // a failed assertion is status 1: the report says which
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("newman wrote no report: %v\n%s", err, out)
	}
	var rep struct {
		Run struct {
			Stats struct {
				Requests, Assertions struct{ Total, Failed int }
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("newman report: %v", err)
	}
	s := rep.Run.Stats
	return s.Requests.Total, s.Requests.Failed, s.Assertions.Total, s.Assertions.Failed
}

// TestPostmanExportNewman runs the export of a server-everything tape with
// newman, Postman's own runner, against server-everything over
// Streamable HTTP: every request's check passes. The same tape with one
// answer recorded as an error fails exactly that check.
func TestPostmanExportNewman(t *testing.T) {
	testserver.NeedEverything(t)
	nodeTool(t, ".bin/newman")
	url := testserver.EverythingHTTP(t)
	for _, path := range serverEverythingTapes {
		n := len(clientMessages(t, path))
		reqs, failedReqs, asserts, failed := newmanRun(t, exportPostman(t, path, ExportURL(url)), url)
		if reqs != n || failedReqs != 0 || asserts != n || failed != 0 {
			t.Errorf("newman %s: %d requests (%d failed), %d checks (%d failed); want %d, none failed", path, reqs, failedReqs, asserts, failed, n)
		}
	}
	n := len(clientMessages(t, "../examples/everything.jsonl"))

	changed := everythingWithOneError(t)
	_, _, asserts, failed := newmanRun(t, exportPostman(t, changed, ExportURL(url)), url)
	if asserts != n || failed != 1 {
		t.Errorf("newman on a tape with one answer changed to an error: %d checks, %d failed; want %d, 1 failed", asserts, failed, n)
	}
}

// everythingWithOneError writes examples/everything.jsonl with the answer
// to one tools/call (id 33) recorded as an error instead of its result.
func everythingWithOneError(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../examples/everything.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const answer = `{"result":{"content":[{"type":"text","text":"The sum of 11 and 22 is 33."}]},"jsonrpc":"2.0","id":33}`
	if !bytes.Contains(raw, []byte(answer)) {
		t.Fatalf("the tape no longer has the answer %s", answer)
	}
	return writeTemp(t, "changed.jsonl", strings.Replace(string(raw), answer, `{"jsonrpc":"2.0","id":33,"error":{"code":-32603,"message":"recorded as an error"}}`, 1))
}

// exportFile writes the tape at path through encode into a file named
// name in a temporary folder, and returns the file's path.
func exportFile(t *testing.T, path, name string, encode func(io.Writer, *Reader, ...ExportOption) error, opts ...ExportOption) string {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := encode(&b, r, opts...); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
