package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/replayctl/replayctl/internal/testleak"
)

// The end-to-end tests of issue 15's "Secrets": the built binary against
// real loopback HTTP servers and real processes; every output — stdout,
// stderr (logs, the final error line), the JSON, JUnit and HTML reports,
// the debugger — is searched for the secrets in every form (testleak).

// replayctlEnv runs the built binary from the repository root with extra
// environment variables and stdin.
func replayctlEnv(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{code, out.String(), errb.String()}
}

// writeTape writes a native tape of the message lines given (each a JSON
// object: seq, dir, msg and perhaps http) and returns its path.
func writeTape(t *testing.T, name string, msgs ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http"}` + "\n")
	for i, m := range msgs {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1",%s}`+"\n", i, 1000*i, m)
	}
	fmt.Fprintf(&b, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", len(msgs), 1000*len(msgs))
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// callTapeLines is a session with one tools/call, answered "recorded".
var callTapeLines = []string{
	`"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
	`"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"echo","version":"0"}}}`,
	`"dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`,
	`"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"recorded"}]}}`,
}

// phpString writes s as a JSON string the way PHP's json_encode does by
// default: '/' as \/, everything not ASCII as \uXXXX; and, beyond it,
// every other character but letters and digits as \u00XX.
func phpString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '/':
			b.WriteString(`\/`)
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+r>>10, 0xDC00+r&0x3FF)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// echoServer is a Streamable HTTP MCP server on a loopback port whose
// tools/call answers with the request's Authorization and X-Api-Key
// headers and its arguments' message, escaped as PHP would; it keeps the
// headers of every request. GET and DELETE get 405.
type echoServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newEchoServer(t *testing.T) *echoServer {
	e := &echoServer{}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *echoServer) headers() []http.Header {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]http.Header(nil), e.seen...)
}

func (e *echoServer) serve(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.seen = append(e.seen, r.Header.Clone())
	e.mu.Unlock()
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Arguments struct {
				Message string `json:"message"`
			} `json:"arguments"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := `{}`
	switch msg.Method {
	case "initialize":
		result = `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"echo","version":"0"}}`
	case "tools/call":
		text := "auth " + r.Header.Get("Authorization") + " key " + r.Header.Get("X-Api-Key") + " message " + msg.Params.Arguments.Message
		result = `{"content":[{"type":"text","text":` + phpString(text) + `}]}`
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
}

// outputsOf gathers what a run showed: stdout, stderr and the report
// files it wrote.
func outputsOf(t *testing.T, res result, reports ...string) map[string]string {
	t.Helper()
	out := map[string]string{"stdout": res.stdout, "stderr": res.stderr}
	for _, p := range reports {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("report %s: %v\nstderr:\n%s", p, err, res.stderr)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// noLeak fails t for each secret readable in any output.
func noLeak(t *testing.T, outputs map[string]string, secrets ...string) {
	t.Helper()
	for name, out := range outputs {
		for _, s := range secrets {
			if how, ok := testleak.Find(out, s); ok {
				t.Errorf("%s shows the secret %q (%s):\n%s", name, s, how, out)
			}
		}
	}
}

// reportPaths are a JSON, a JUnit and an HTML report in a new folder.
func reportPaths(t *testing.T) []string {
	dir := t.TempDir()
	return []string{filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.html")}
}

func withReports(args []string, reports []string) []string {
	for _, p := range reports {
		args = append(args, "--report", p)
	}
	return args
}

// --header 'Authorization: Bearer ${TOKEN}': the server gets the token;
// no output shows it, nor the X-Api-Key taken from ${KEY}, though the
// server echoes both (escaped as PHP would) and the answer fails.
func TestHeaderTokenNeverShown(t *testing.T) {
	const token, key = `tok/+é"<&>\z-42`, "key+/=Ab-9"
	srv := newEchoServer(t)
	tapePath := writeTape(t, "call.jsonl", callTapeLines...)
	env := []string{"REPLAYCTL_E2E_TOKEN=" + token, "REPLAYCTL_E2E_KEY=" + key}
	for _, output := range []string{"json", "text"} {
		t.Run(output, func(t *testing.T) {
			reports := reportPaths(t)
			args := withReports([]string{"run", tapePath, "--speed", "fast", "-o", output, "--log-level", "debug",
				"--target", srv.srv.URL + "/mcp",
				"--header", "Authorization: Bearer ${REPLAYCTL_E2E_TOKEN}", "--header", "X-Api-Key: ${REPLAYCTL_E2E_KEY}"}, reports)
			res := replayctlEnv(t, env, "", args...)
			if res.code != 1 {
				t.Fatalf("exit %d, want 1 (the echo differs from the recording)\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			got := srv.headers()
			if last := got[len(got)-1]; last.Get("Authorization") != "Bearer "+token || last.Get("X-Api-Key") != key {
				t.Fatalf("the server got Authorization %q, X-Api-Key %q; want the expanded values", last.Get("Authorization"), last.Get("X-Api-Key"))
			}
			outputs := outputsOf(t, res, reports...)
			noLeak(t, outputs, token, key)
			for _, name := range []string{"stdout", "r.json", "r.xml", "r.html"} {
				if !strings.Contains(outputs[name], "[redacted]") {
					t.Errorf("%s should show the echo with [redacted] in it:\n%s", name, outputs[name])
				}
			}
		})
	}
}

// A config's ${env.X} with characters every writer escapes: no form of it
// in any output — the HTML report's &#43;, the JSON's \/ and \u00e9, the
// final error line of a target that fails quoting it.
func TestConfigSecretInEveryEncoding(t *testing.T) {
	const secret = `s3+cr/t é"q<&>'%2B`
	env := []string{"REPLAYCTL_E2E_SECRET=" + secret}
	cfg := writeConfig(t, `
transformations:
  - condition: { method_equals: tools/call }
    action:
      set_param: { path: "$.params.arguments.message", value: "${env.REPLAYCTL_E2E_SECRET}" }
  - condition: { method_equals: initialize }
    action:
      set_param: { path: "$.params.clientInfo.name", value: "${env.REPLAYCTL_E2E_SECRET}" }
`)
	t.Run("answers and reports", func(t *testing.T) {
		srv := newEchoServer(t)
		tapePath := writeTape(t, "call.jsonl", callTapeLines...)
		for _, output := range []string{"json", "text"} {
			reports := reportPaths(t)
			res := replayctlEnv(t, env, "", withReports([]string{"run", tapePath, "--speed", "fast", "-o", output,
				"--log-level", "debug", "--config", cfg, "--target", srv.srv.URL + "/mcp"}, reports)...)
			if res.code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			outputs := outputsOf(t, res, reports...)
			noLeak(t, outputs, secret)
			if html := outputs["r.html"]; strings.Contains(html, "s3&#43;cr") || !strings.Contains(html, "[redacted]") {
				t.Errorf("the HTML report should show [redacted], not the escaped secret:\n%s", html)
			}
		}
	})
	t.Run("the final error line", func(t *testing.T) {
		// The server reads the initialize request, quotes it on stderr and
		// dies: the error names what it wrote, the secret in it.
		dies := `read l; printf 'bad client: %s\n' "$l" >&2; exit 1`
		res := replayctlEnv(t, env, "", "run", "examples/quickstart.jsonl", "--speed", "fast", "--log-level", "debug",
			"--config", cfg, "--", "sh", "-c", dies)
		if res.code != 3 {
			t.Fatalf("exit %d, want 3 (the target failed)\nstderr:\n%s", res.code, res.stderr)
		}
		lines := strings.Split(strings.TrimSpace(res.stderr), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "replayctl: ") || !strings.Contains(last, "bad client") || !strings.Contains(last, "[redacted]") {
			t.Errorf("the last line should be the error, quoting the server with the secret redacted:\n%s", res.stderr)
		}
		noLeak(t, map[string]string{"stdout": res.stdout, "stderr": res.stderr}, secret)
	})
}

// A redirect to another port is another origin: refused unless
// --follow-redirects, and even then the server there never gets the
// headers; a redirect within the origin keeps them.
func TestRedirectToAnotherOrigin(t *testing.T) {
	const key = "key-redirect-55"
	env := []string{"REPLAYCTL_E2E_KEY=" + key}
	home := newEchoServer(t)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, home.srv.URL+"/mcp", http.StatusTemporaryRedirect) // not this server: another origin
			return
		}
		http.Redirect(w, r, "/mcp-here", http.StatusPermanentRedirect)
	}))
	t.Cleanup(redirect.Close)
	tapePath := writeTape(t, "call.jsonl", callTapeLines...)
	args := func(url string, extra ...string) []string {
		return append([]string{"run", tapePath, "--speed", "fast", "-o", "json", "--target", url,
			"--header", "X-Api-Key: ${REPLAYCTL_E2E_KEY}", "--header", "Authorization: Bearer lit-credential"}, extra...)
	}
	// The redirect server hands /moved to home, on another port.
	res := replayctlEnv(t, env, "", args(redirect.URL+"/moved")...)
	if res.code != 3 || !strings.Contains(res.stderr, "--follow-redirects") || !strings.Contains(res.stderr, "another origin") {
		t.Errorf("refused: exit %d, want 3 with a message naming --follow-redirects\nstderr:\n%s", res.code, res.stderr)
	}
	if n := len(home.headers()); n != 0 {
		t.Errorf("the other origin got %d requests, want none", n)
	}
	noLeak(t, map[string]string{"stdout": res.stdout, "stderr": res.stderr}, key, "lit-credential")

	res = replayctlEnv(t, env, "", args(redirect.URL+"/moved", "--follow-redirects")...)
	if res.code != 1 { // followed: the echo (without the headers) differs from the recording
		t.Errorf("followed: exit %d, want 1\nstderr:\n%s", res.code, res.stderr)
	}
	got := home.headers()
	if len(got) == 0 {
		t.Fatalf("followed: the other origin got nothing")
	}
	for _, h := range got {
		for _, k := range []string{"X-Api-Key", "Authorization", "Mcp-Session-Id", "Referer"} {
			if v := h.Get(k); v != "" {
				t.Errorf("followed: the other origin got %s: %s", k, v)
			}
		}
	}

	// Within the origin (another path of the same server): followed, with
	// the headers.
	same := newEchoServer(t)
	within := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
			return
		}
		same.serve(w, r)
	}))
	t.Cleanup(within.Close)
	res = replayctlEnv(t, env, "", args(within.URL+"/old")...)
	if res.code != 1 {
		t.Errorf("same origin: exit %d, want 1 (the echo differs)\nstderr:\n%s", res.code, res.stderr)
	}
	sh := same.headers()
	if len(sh) == 0 || sh[len(sh)-1].Get("X-Api-Key") != key {
		t.Errorf("same origin: the redirected requests should keep X-Api-Key; got %v", sh)
	}
}

// Credentials recorded in a tape — Authorization in the http metadata, a
// password in params, tokens in answers — are masked in debug print,
// list and step, and in the differences of every report.
func TestRecordedCredentialsMasked(t *testing.T) {
	recorded := []string{
		`"dir":"c2s","http":{"headers":{"Authorization":["Bearer rec-auth-111"],"Content-Type":["application/json"]}},"msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`"dir":"s2c","http":{"status":200,"headers":{"Set-Cookie":["sid=rec-cookie-222"]}},"msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"auth","version":"0"}}}`,
		`"dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login","arguments":{"user":"ann","password":"hunter2-333"}}}`,
		`"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"access_token":"rec-token-444","user":"ann"},"content":[]}}`,
	}
	newer := append([]string(nil), recorded...)
	newer[4] = `"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"access_token":"live-token-555","user":"bob"},"content":[]}}`
	tapePath := writeTape(t, "login.jsonl", recorded...)
	mockPath := writeTape(t, "newer.jsonl", newer...)
	credentials := []string{"rec-auth-111", "rec-cookie-222", "hunter2-333", "rec-token-444", "live-token-555"}

	reports := reportPaths(t)
	for _, output := range []string{"json", "text"} {
		res := replayctl(t, withReports([]string{"run", tapePath, "--speed", "fast", "-o", output, "--mock-tape", mockPath}, reports)...)
		if res.code != 1 {
			t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
		}
		outputs := outputsOf(t, res, reports...)
		noLeak(t, outputs, credentials...)
		// The user's change is still shown: only the credential is masked.
		if !strings.Contains(outputs["r.json"], `"bob"`) || !strings.Contains(outputs["r.json"], `"[redacted]"`) {
			t.Errorf("the report should show user ann → bob and the token as [redacted]:\n%s", outputs["r.json"])
		}
	}

	script := "print 0\nprint 1\nprint 3\nprint 4\nlist 4\nstep\ndiff\n"
	res := replayctlIn(t, script, "debug", tapePath, "--mock-tape", mockPath, "--on-error", "continue")
	noLeak(t, map[string]string{"stdout": res.stdout, "stderr": res.stderr}, credentials...)
	for _, want := range []string{"Authorization: [redacted]", "Set-Cookie: [redacted]", `"password": "[redacted]"`, `access_token: "[redacted]" → "[redacted]"`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("debug output lacks %q:\n%s", want, res.stdout)
		}
	}
}
