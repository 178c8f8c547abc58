package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/tape"
)

// The HAR fixtures of package tape: real go-sdk client traffic against
// the go-sdk conformance server (see internal/testtools/genhar).
const harFixtures = "tape/testdata/"

// TestImportHARThenReplay imports the session-based HAR, says what it
// imported, and replays the tape, and the HAR itself, against a live
// go-sdk conformance server: zero failures.
func TestImportHARThenReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays against a real server")
	}
	out := filepath.Join(t.TempDir(), "s.jsonl")
	res := replayctl(t, "import", harFixtures+"gosdk-2025.har", out)
	if res.code != 0 {
		t.Fatalf("import exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"(har)", "40 messages, 1 session (s1)", "a DELETE", "skipped"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if b, err := os.ReadFile(out); err != nil || strings.Contains(string(b), "genhar-secret-token") || strings.Contains(string(b), "Authorization") {
		t.Fatalf("tape: %v; a credential in it: %v", err, strings.Contains(string(b), "genhar-secret-token"))
	}
	url := testserver.GoSDKHTTP(t)
	for _, in := range []string{out, harFixtures + "gosdk-2025.har"} {
		res := replayctl(t, "run", in, "--target", url, "--speed", "fast", "-o", "json")
		if res.code != 0 {
			t.Fatalf("run %s exit %d: %s", in, res.code, res.stderr)
		}
		r := decodeReport(t, res.stdout)
		if r.Validation.Failed != 0 || r.Validation.Checked < 14 || r.Validation.Passed != r.Validation.Checked {
			t.Errorf("run %s: checked/passed/failed = %d/%d/%d, want ≥14 all passed", in, r.Validation.Checked, r.Validation.Passed, r.Validation.Failed)
		}
	}
}

// TestImportStatelessHARThenReplay: the 2026-07-28 HAR with base64
// bodies against the stateless server.
func TestImportStatelessHARThenReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays against a real server")
	}
	url := testserver.GoSDKHTTPStateless(t)
	res := replayctl(t, "run", harFixtures+"gosdk-2026.har", "--target", url, "--speed", "fast", "-o", "json")
	if res.code != 0 {
		t.Fatalf("run exit %d: %s", res.code, res.stderr)
	}
	if r := decodeReport(t, res.stdout); r.Validation.Failed != 0 || r.Validation.Checked < 14 {
		t.Errorf("checked/failed = %d/%d", r.Validation.Checked, r.Validation.Failed)
	}
}

// TestExportImportRoundTrip: native → export --har → import gives the
// same messages; inspect reads the HAR directly.
func TestExportImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	native, har, back := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.har"), filepath.Join(dir, "b.jsonl")
	if res := replayctl(t, "import", harFixtures+"gosdk-2025.har", native); res.code != 0 {
		t.Fatalf("import exit %d: %s", res.code, res.stderr)
	}
	if res := replayctl(t, "export", "--har", native, har); res.code != 0 || !strings.Contains(res.stdout, "wrote") {
		t.Fatalf("export exit %d: %s %s", res.code, res.stdout, res.stderr)
	}
	res := replayctl(t, "import", har, back)
	if res.code != 0 || !strings.Contains(res.stderr, "40 messages") {
		t.Fatalf("import of the export: exit %d: %s", res.code, res.stderr)
	}
	a, b := readMessages(t, native), readMessages(t, back)
	if len(a) != len(b) {
		t.Fatalf("%d messages back, want %d", len(b), len(a))
	}
	for i := range a {
		if string(a[i].Msg) != string(b[i].Msg) || a[i].Dir != b[i].Dir || a[i].Session != b[i].Session || a[i].TUS != b[i].TUS {
			t.Errorf("seq %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
	ins := replayctl(t, "inspect", har)
	if ins.code != 0 || !strings.Contains(ins.stdout, "sampling/createMessage") {
		t.Errorf("inspect of a HAR: exit %d: %s %s", ins.code, ins.stdout, ins.stderr)
	}
}

func readMessages(t *testing.T, path string) []tape.Message {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []tape.Message
	for {
		m, err := r.Next()
		if err != nil {
			return out
		}
		out = append(out, m)
	}
}

func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile("../../" + harFixtures + "gosdk-2025.har")
	if err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(dir, "torn.har")
	if err := os.WriteFile(torn, good[:len(good)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	badLog := filepath.Join(dir, "bad.log")
	if err := os.WriteFile(badLog, []byte("--> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n<-- not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"import", torn, out}, "cut short (torn)"},
		{[]string{"import", badLog, out}, "bad.log line 2: not a JSON-RPC message"},
		{[]string{"import", torn, filepath.Join(dir, "out.har")}, "name it .jsonl"},
		{[]string{"export", torn, filepath.Join(dir, "x.har")}, "--har"},
		{[]string{"export", "--har", torn, filepath.Join(dir, "x.har")}, "cut short (torn)"},
	}
	for _, c := range cases {
		res := replayctl(t, c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) || strings.Contains(res.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed import left %s: %v", out, err)
	}
}

// TestImportConvertKeepAnExistingTape: import and convert, like record,
// refuse to write over a tape that exists unless --force, and leave it
// as it was.
func TestImportConvertKeepAnExistingTape(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	const kept = "a tape the user recorded\n"
	for _, cmd := range []string{"import", "convert"} {
		if err := os.WriteFile(out, []byte(kept), 0o644); err != nil {
			t.Fatal(err)
		}
		in := harFixtures + "gosdk-2025.har" // replayctl runs at the module root
		res := replayctl(t, cmd, in, out)
		if res.code != 2 || !strings.Contains(res.stderr, out+" exists; pass --force") {
			t.Errorf("%s onto an existing tape: exit %d, stderr %q; want 2 and %q", cmd, res.code, res.stderr, "exists; pass --force")
		}
		if b, _ := os.ReadFile(out); string(b) != kept {
			t.Errorf("%s changed the existing tape to %.60q", cmd, b)
		}
		res = replayctl(t, cmd, "--force", in, out)
		if res.code != 0 {
			t.Errorf("%s --force: exit %d, stderr %q", cmd, res.code, res.stderr)
		}
		if strings.Contains(res.stderr, " 1 HAR entries") {
			t.Errorf("%s: one entry is %q:\n%s", cmd, "1 HAR entry", res.stderr)
		}
		if b, _ := os.ReadFile(out); string(b) == kept {
			t.Errorf("%s --force left the old tape", cmd)
		}
	}
}
