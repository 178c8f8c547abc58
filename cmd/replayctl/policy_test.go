package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testleak"
	"github.com/replayctl/replayctl/internal/testserver"
)

// The end-to-end tests of issue 22's "Secrets that get through" and
// "Terminal injection": the built binary, real servers on loopback, and
// every output searched for the secrets (testleak) or for raw control
// characters.

// Secrets in an upstream URL: the userinfo's password and a credential
// query parameter.
const (
	urlPassword = "pw-Url-7Qx9c1"
	urlAPIKey   = "key-Url-Kk48vb"
)

// credURL is u (http://HOST/PATH) with a user and urlPassword in its
// userinfo and urlAPIKey as its api_key parameter.
func credURL(u string) string {
	return strings.Replace(u, "http://", "http://alice:"+urlPassword+"@", 1) + "?api_key=" + urlAPIKey
}

// noURLSecret fails the test if an output holds either URL secret.
func noURLSecret(t *testing.T, outputs map[string]string) {
	t.Helper()
	for name, out := range outputs {
		for _, s := range []string{urlPassword, urlAPIKey} {
			if how, found := testleak.Find(out, s); found {
				t.Errorf("%s holds the URL's secret %q (%s):\n%s", name, s, how, clip(out, 4000))
			}
		}
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var recordingAt = regexp.MustCompile(`recording http://(127\.0\.0\.1:\d+)/`)

// TestURLCredentialsMasked records server-everything over HTTP through
// `record --listen --upstream` given a URL with a password and an
// api_key: neither is in the banner, the tape, the HAR export of the
// tape, nor in what `run --target URL --report` prints and writes.
func TestURLCredentialsMasked(t *testing.T) {
	upstream := testserver.EverythingHTTP(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl")
	rec := startProc(t, binary, "record", "-o", path, "--listen", "127.0.0.1:0", "--upstream", credURL(upstream))
	rec.waitOutput(rec.stderr, "Ctrl-C to stop", 30*time.Second)
	m := recordingAt.FindStringSubmatch(rec.stderr.String())
	if m == nil {
		t.Fatalf("no listen address in record's banner:\n%s", rec.stderr)
	}
	path0 := strings.TrimPrefix(upstream, "http://")
	path0 = path0[strings.Index(path0, "/"):]
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	req, err := http.NewRequest("POST", "http://"+m[1]+path0, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(answer, []byte(`"serverInfo"`)) {
		t.Fatalf("initialize through record: %d %s", resp.StatusCode, answer)
	}
	if err := rec.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := rec.wait(20 * time.Second); code != 0 {
		t.Fatalf("record exit %d\n%s", code, rec.stderr)
	}
	tapeText := readString(t, path)
	if !strings.Contains(tapeText, `"serverInfo"`) {
		t.Fatalf("the tape has no answer: the test proves nothing\n%s", tapeText)
	}
	har := filepath.Join(dir, "rec.har")
	exp := replayctl(t, "export", "--har", path, har)
	if exp.code != 0 {
		t.Fatalf("export: %d %s", exp.code, exp.stderr)
	}
	report := filepath.Join(dir, "r.json")
	run := replayctl(t, "run", path, "--speed", "fast", "--target", credURL(upstream), "--report", report, "-o", "json")
	if run.code == 2 {
		t.Fatalf("run: %d %s", run.code, run.stderr)
	}
	noURLSecret(t, map[string]string{"record's stderr": rec.stderr.String(), "the tape": tapeText,
		"the HAR": readString(t, har), "run's stdout": run.stdout, "run's stderr": run.stderr, "the report": readString(t, report)})
}

// TestURLCredentialsMaskedInOldTapesAndHAR: a tape written before the
// URL was masked exports a HAR without its secrets, and a HAR whose
// requests went to a URL with credentials imports into a tape whose
// header does not hold them.
func TestURLCredentialsMaskedInOldTapesAndHAR(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jsonl")
	lines := []string{
		`{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http","server":{"url":"` + credURL("http://127.0.0.1:1/mcp") + `"}}`,
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":` + callTapeLines[0][len(`"dir":"c2s","msg":`):] + `}`,
		`{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":` + callTapeLines[1][len(`"dir":"s2c","msg":`):] + `}`,
		`{"type":"end","messages":2,"duration_us":10}`,
	}
	if err := os.WriteFile(old, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	har := filepath.Join(dir, "old.har")
	if res := replayctl(t, "export", "--har", old, har); res.code != 0 {
		t.Fatalf("export: %d %s", res.code, res.stderr)
	}
	// A HAR from elsewhere (no _replayctl members), requests to a URL
	// with credentials.
	foreign := `{"log":{"version":"1.2","creator":{"name":"browser","version":"1"},"entries":[{"startedDateTime":"2025-01-01T00:00:00.000Z","time":1,` +
		`"request":{"method":"POST","url":"` + credURL("http://127.0.0.1:1/mcp") + `","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0,` +
		`"postData":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}},` +
		`"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[],"cookies":[],"content":{"size":0,"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"},"redirectURL":"","headersSize":-1,"bodySize":0},` +
		`"cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}`
	fpath := filepath.Join(dir, "foreign.har")
	if err := os.WriteFile(fpath, []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	imported := filepath.Join(dir, "imported.jsonl")
	res := replayctl(t, "import", fpath, imported)
	if res.code != 0 {
		t.Fatalf("import: %d %s", res.code, res.stderr)
	}
	got := readString(t, imported)
	if !strings.Contains(got, `127.0.0.1:1/mcp`) {
		t.Fatalf("the imported tape's header has no URL: the test proves nothing\n%s", got)
	}
	noURLSecret(t, map[string]string{"the exported HAR": readString(t, har), "the imported tape": got, "import's stderr": res.stderr})
}

// TestServeForwardErrorMasksURL: serve --mode new, its upstream given by
// a URL with credentials that cannot be reached: the miss printed, the
// error the client gets and the report do not hold the URL's secrets.
func TestServeForwardErrorMasksURL(t *testing.T) {
	tapePath := writeTape(t, "t.jsonl", callTapeLines...)
	report := filepath.Join(t.TempDir(), "serve.json")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"not recorded"}}}`,
	}, "\n") + "\n"
	res := replayctlIn(t, in, "serve", "--mode", "new", "--upstream", credURL("http://127.0.0.1:1/mcp"), "--report", report, tapePath)
	if !strings.Contains(res.stdout, `"id":2`) {
		t.Fatalf("the miss was not answered (exit %d):\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	rep, _ := os.ReadFile(report)
	noURLSecret(t, map[string]string{"serve's stdout (the client's error)": res.stdout, "serve's stderr": res.stderr, "the report": string(rep)})
}

// Secret values under the names the issue found passing.
var nameSecrets = map[string]string{
	"pass": "v-pass-1w9", "pwd": "v-pwd-2x8", "bearer": "v-bearer-3y7", "jwt": "v-jwt-4z6",
	"auth": "v-auth-5a5", "access_key": "v-akey-6b4", "db_password": "v-dbpw-7c3", "session_secret": "v-ssec-8d2",
}

// secretArguments is a JSON object of tool arguments: each name of
// nameSecrets with its value, and "doc", JSON text in a string holding a
// password and an api_key.
func secretArguments() string {
	args := map[string]any{}
	for k, v := range nameSecrets {
		args[k] = v
	}
	args["doc"] = `{"user":"bob","password":"v-inner-pw-9e1","nested":[{"api_key":"v-inner-key-0f0"}]}`
	args["message"] = "hi"
	b, _ := json.Marshal(args)
	return string(b)
}

// innerSecrets are the values inside the JSON text of secretArguments.
var innerSecrets = []string{"v-inner-pw-9e1", "v-inner-key-0f0"}

// TestRecordMasksExtraNamesAndJSONInStrings records server-everything
// over stdio: a tools/call whose arguments hold secrets under pass, pwd,
// bearer, jwt, auth, access_key, db_password, session_secret, and JSON
// text in a string with a password inside: none of them is on the tape,
// the JSON text's other members are as sent, and the tape replays.
//
// The client closes its input only once the answer to its tools/call has
// come back, as a real client does: closed at once, the server (node,
// slow to start on a loaded machine) gets --stop-timeout to answer and
// exit, and is stopped before it answered anything.
func TestRecordMasksExtraNamesAndJSONInStrings(t *testing.T) {
	argv := testserver.Everything(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":` + secretArguments() + `}}`,
	}, "\n") + "\n"
	rec := startProc(t, append([]string{binary, "record", "-o", path, "--"}, argv...)...)
	if _, err := io.WriteString(rec.stdin, in); err != nil {
		t.Fatal(err)
	}
	rec.waitOutput(rec.stdout, `"id":2`, 2*time.Minute)
	rec.stdin.Close()
	if code := rec.wait(time.Minute); code != 0 {
		t.Fatalf("record: %d %s", code, rec.stderr)
	}
	got := readString(t, path)
	if !strings.Contains(got, `tools/call`) || !strings.Contains(got, `Echo: hi`) {
		t.Fatalf("the tape has no tools/call or not its answer: the test proves nothing\n%s", got)
	}
	for name, v := range nameSecrets {
		if strings.Contains(got, v) {
			t.Errorf("the tape holds the value of %s", name)
		}
	}
	for _, v := range innerSecrets {
		if strings.Contains(got, v) {
			t.Errorf("the tape holds %s, inside JSON text in a string", v)
		}
	}
	if !strings.Contains(got, `{\"user\":\"bob\",\"password\":`) {
		t.Errorf("the JSON text's other members are not as sent:\n%s", got)
	}
	// The redacted tape still replays against the same server.
	if run := replayctl(t, append([]string{"run", path, "--speed", "fast", "--"}, argv...)...); run.code != 0 {
		t.Errorf("replay of the redacted tape: exit %d\n%s%s", run.code, run.stdout, run.stderr)
	}
}

// secretPair is two tapes of one tools/call whose arguments and answers
// hold secrets under db_password, session_secret and auth.bearer, with
// different values in each tape.
func secretPair(t *testing.T) (a, b string) {
	t.Helper()
	one := func(name, suffix string) string {
		return writeTape(t, name, callTapeLines[0], callTapeLines[1], callTapeLines[2],
			`"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login","arguments":{"db_password":"dbpw-`+suffix+`","note":"n`+suffix+`"}}}`,
			`"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"session_secret":"ssec-`+suffix+`","auth":{"bearer":"bear-`+suffix+`"},"structuredContent":{"db_password":"dbpw2-`+suffix+`"},"content":[]}}`)
	}
	return one("a.jsonl", "AAA1"), one("b.jsonl", "BBB2")
}

var pairSecrets = []string{"dbpw-AAA1", "dbpw-BBB2", "ssec-AAA1", "ssec-BBB2", "bear-AAA1", "bear-BBB2", "dbpw2-AAA1", "dbpw2-BBB2"}

// TestDiffMasksSecretNames: diff, text and JSON, shows that secrets
// differ and never their values.
func TestDiffMasksSecretNames(t *testing.T) {
	a, b := secretPair(t)
	for _, format := range []string{"text", "json"} {
		res := replayctl(t, "diff", a, b, "-o", format)
		if !strings.Contains(res.stdout, "note") {
			t.Fatalf("diff -o %s shows no difference: the test proves nothing (exit %d)\n%s%s", format, res.code, res.stdout, res.stderr)
		}
		for _, s := range pairSecrets {
			if strings.Contains(res.stdout+res.stderr, s) {
				t.Errorf("diff -o %s shows %s:\n%s", format, s, res.stdout)
			}
		}
	}
}

// TestServeMissMasksSecretNames: a request with secrets under
// db_password and auth.bearer misses; the miss serve prints, the error
// the client gets and the report do not show them.
func TestServeMissMasksSecretNames(t *testing.T) {
	a, _ := secretPair(t)
	report := filepath.Join(t.TempDir(), "serve.json")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login","arguments":{"db_password":"dbpw-BBB2","note":"nAAA1","auth":{"bearer":"bear-BBB2"},"session_secret":"ssec-BBB2"}}}`,
	}, "\n") + "\n"
	res := replayctlIn(t, in, "serve", "--report", report, a)
	if !strings.Contains(res.stderr, "miss") || !strings.Contains(res.stdout, `"id":2`) {
		t.Fatalf("no miss: the test proves nothing (exit %d)\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	outs := res.stdout + res.stderr + readString(t, report)
	for _, s := range []string{"dbpw-BBB2", "bear-BBB2", "ssec-BBB2", "dbpw-AAA1"} {
		if strings.Contains(outs, s) {
			t.Errorf("serve shows %s:\nstdout:\n%s\nstderr:\n%s", s, res.stdout, res.stderr)
		}
	}
}

// TestHARMetaHoldsNoCredentials: a tape whose messages kept an
// Authorization header exports a HAR that holds it nowhere (the
// _replayctl members included), and a HAR whose _replayctl.meta holds
// credential headers imports into a tape without them.
func TestHARMetaHoldsNoCredentials(t *testing.T) {
	const cred = "Bearer cred-Meta-55xq"
	dir := t.TempDir()
	withAuth := writeTape(t, "auth.jsonl",
		callTapeLines[0][:len(callTapeLines[0])]+`,"http":{"headers":{"Authorization":["`+cred+`"],"Mcp-Protocol-Version":["2025-06-18"]}}`,
		callTapeLines[1]+`,"http":{"status":200,"headers":{"Set-Cookie":["sid=`+cred+`"]}}`)
	har := filepath.Join(dir, "auth.har")
	if res := replayctl(t, "export", "--har", withAuth, har); res.code != 0 {
		t.Fatalf("export: %d %s", res.code, res.stderr)
	}
	text := readString(t, har)
	if !strings.Contains(text, "Mcp-Protocol-Version") {
		t.Fatalf("the HAR lost the other headers: the test proves nothing\n%s", text)
	}
	if strings.Contains(text, "cred-Meta-55xq") {
		t.Errorf("the HAR holds the credential:\n%s", text)
	}
	// The same HAR with the credential put back into _replayctl.meta by
	// hand: import drops it.
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	entry := doc["log"].(map[string]any)["entries"].([]any)[0].(map[string]any)
	meta := entry["_replayctl"].(map[string]any)["meta"].([]any)
	meta[0] = map[string]any{"http": map[string]any{"headers": map[string]any{"Authorization": []string{cred}, "X-Api-Key": []string{"cred-Meta-55xq"}}}}
	b, _ := json.Marshal(doc)
	edited := filepath.Join(dir, "edited.har")
	if err := os.WriteFile(edited, b, 0o644); err != nil {
		t.Fatal(err)
	}
	imported := filepath.Join(dir, "imported.jsonl")
	if res := replayctl(t, "import", edited, imported); res.code != 0 {
		t.Fatalf("import: %d %s", res.code, res.stderr)
	}
	if got := readString(t, imported); strings.Contains(got, "cred-Meta-55xq") {
		t.Errorf("import restored the credential from _replayctl.meta:\n%s", got)
	}
}

// hostile is a method name that sets the terminal's title and clears
// the screen when printed raw.
const hostile = "tools/call\x1b]0;pwned\x07\x1b[2J\u009b31m"

// rawControl reports whether s holds a control character a terminal
// acts on (tab and newline aside).
func rawControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

// TestControlCharactersEscaped: a method name with escape sequences, in a
// tape and from a client, is printed escaped by inspect, diff and serve.
func TestControlCharactersEscaped(t *testing.T) {
	q, _ := json.Marshal(hostile)
	lines := append([]string{}, callTapeLines[:3]...)
	lines = append(lines, `"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":`+string(q)+`,"params":{}}`)
	evil := writeTape(t, "evil.jsonl", lines...)
	plain := writeTape(t, "plain.jsonl", callTapeLines...)
	check := func(what string, res result) {
		t.Helper()
		if !strings.Contains(res.stdout+res.stderr, `\x1b]0;pwned`) {
			t.Errorf("%s does not show the method escaped (exit %d):\nstdout:\n%q\nstderr:\n%q", what, res.code, res.stdout, res.stderr)
		}
		if rawControl(res.stdout) || rawControl(res.stderr) {
			t.Errorf("%s prints raw control characters:\nstdout:\n%q\nstderr:\n%q", what, res.stdout, res.stderr)
		}
	}
	check("inspect", replayctl(t, "inspect", evil))
	check("diff", replayctl(t, "diff", plain, evil))
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":` + string(q) + `,"params":{}}`,
	}, "\n") + "\n"
	res := replayctlIn(t, in, "serve", plain)
	res.stdout = "" // JSON for the client: escaped as JSON, not for a terminal
	check("serve", res)
}
