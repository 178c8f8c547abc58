package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/transport"
)

// compareCalls is how many calls of each tool volatileCLITape makes.
const compareCalls = 10

// volatileCLITape records one session against the volatile test server
// over stdio: the handshake, tools/list, then rounds of stamp, greet and
// add.
func volatileCLITape(t *testing.T) string {
	t.Helper()
	msgs := testtape.Conversation("stamp", `{}`, 0) // the handshake
	msgs = append(msgs, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	id := 2
	for i := range compareCalls {
		for _, call := range []string{`{"name":"stamp","arguments":{}}`, fmt.Sprintf(`{"name":"greet","arguments":{"name":"user %d"}}`, i), fmt.Sprintf(`{"name":"add","arguments":{"a":%d,"b":1}}`, i)} {
			msgs = append(msgs, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, call))
			id++
		}
	}
	return testtape.Record(t, transport.Stdio{Command: testserver.Volatile(t)}, testtape.TransportStdio, msgs)
}

// compareJSON is what the tests read of compare -o json.
type compareJSON struct {
	Runs []struct {
		Role   string `json:"role"`
		Status int    `json:"status"`
	} `json:"runs"`
	Summary struct {
		Compared     int `json:"compared"`
		Changed      int `json:"changed"`
		Noise        int `json:"noise"`
		TargetFailed int `json:"target_failed"`
	} `json:"summary"`
	Changed []struct {
		Method string `json:"method"`
		Name   string `json:"name"`
		Path   string `json:"path"`
		Raw    int    `json:"raw"`
		Noise  int    `json:"noise"`
	} `json:"changed"`
	Latency []struct {
		Method  string `json:"method"`
		Name    string `json:"name"`
		Changed bool   `json:"changed"`
	} `json:"latency"`
}

func decodeCompare(t *testing.T, res result) compareJSON {
	t.Helper()
	var c compareJSON
	if err := json.Unmarshal([]byte(res.stdout), &c); err != nil {
		t.Fatalf("compare -o json: %v\nstdout: %s\nstderr: %s", err, res.stdout, res.stderr)
	}
	return c
}

// cmdTarget is the volatile server as a compare target: cmd:ARGV.
func cmdTarget(t *testing.T, args ...string) string {
	return "cmd:" + strings.Join(testserver.Volatile(t, args...), " ")
}

// TestCompareSameServer: the volatile server (random ids, numbers and
// times in its answers) as primary and candidate reports no change, and
// --fail-on-difference passes; its volatile paths are listed as noise.
func TestCompareSameServer(t *testing.T) {
	tp := volatileCLITape(t)
	res := replayctl(t, "compare", tp, "--primary", cmdTarget(t), "--candidate", cmdTarget(t), "--fail-on-difference", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	c := decodeCompare(t, res)
	if c.Summary.Changed != 0 || c.Summary.Noise < 4 || c.Summary.Compared != 2+3*compareCalls {
		t.Errorf("summary: got %+v, want 0 changed, 4 or more noise paths, %d compared", c.Summary, 2+3*compareCalls)
	}
	if len(c.Runs) != 3 || c.Runs[2].Role != "secondary" {
		t.Errorf("runs: got %+v, want primary, candidate, secondary", c.Runs)
	}
}

// TestCompareChangedField: a candidate whose greet answers in French is
// reported at that one path, --fail-on-difference exits 1, and the text,
// the JSON report and the HTML page name it.
func TestCompareChangedField(t *testing.T) {
	tp := volatileCLITape(t)
	dir := t.TempDir()
	jsonPath, htmlPath := filepath.Join(dir, "c.json"), filepath.Join(dir, "c.html")
	res := replayctl(t, "compare", tp, "--primary", cmdTarget(t), "--candidate", cmdTarget(t, "-lang", "fr"),
		"--fail-on-difference", "--report", jsonPath, "--report", htmlPath)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{"changed: 1 path", "tools/call greet", "result.structuredContent.lang", fmt.Sprintf("raw %d/%d", compareCalls, compareCalls), `"en" → "fr"`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout has no %q:\n%s", want, res.stdout)
		}
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	c := decodeCompare(t, result{stdout: string(b)})
	if len(c.Changed) != 1 || c.Changed[0].Name != "greet" || c.Changed[0].Path != "result.structuredContent.lang" || c.Changed[0].Raw != compareCalls || c.Changed[0].Noise != 0 {
		t.Errorf("changed: got %+v, want greet result.structuredContent.lang raw %d noise 0", c.Changed, compareCalls)
	}
	page, err := os.ReadFile(htmlPath)
	if err != nil || !strings.Contains(string(page), "result.structuredContent.lang") {
		t.Errorf("HTML report: %v, has the path: %v", err, strings.Contains(string(page), "result.structuredContent.lang"))
	}
	// Without --fail-on-difference it is a comparison like any other.
	if res := replayctl(t, "compare", tp, "--primary", cmdTarget(t), "--candidate", cmdTarget(t, "-lang", "fr"), "-o", "json"); res.code != 0 {
		t.Errorf("without --fail-on-difference: exit %d, want 0\n%s", res.code, res.stderr)
	}
}

// TestCompareSlowerCandidate: a candidate 50ms slower per call shows in
// the latency of tools/call.
func TestCompareSlowerCandidate(t *testing.T) {
	tp := volatileCLITape(t)
	res := replayctl(t, "compare", tp, "--primary", cmdTarget(t), "--candidate", cmdTarget(t, "-delay", "50ms"), "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	c := decodeCompare(t, res)
	for _, l := range c.Latency {
		if l.Method == "tools/call" && l.Name == "" {
			if !l.Changed {
				t.Errorf("tools/call latency: got %+v, want changed", l)
			}
			return
		}
	}
	t.Errorf("no tools/call latency in %+v", c.Latency)
}

// TestCompareTargetFails: a candidate command that cannot start fails
// its run: the report is printed, the exit status is 3.
func TestCompareTargetFails(t *testing.T) {
	tp := volatileCLITape(t)
	res := replayctl(t, "compare", tp, "--primary", cmdTarget(t), "--candidate", "cmd:"+filepath.Join(t.TempDir(), "no-such-server"), "-o", "json")
	if res.code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	c := decodeCompare(t, res)
	if c.Summary.TargetFailed != 1 || c.Runs[1].Status != 3 || c.Summary.Changed == 0 {
		t.Errorf("summary: got %+v, runs %+v; want the candidate failed and its missing answers changed", c.Summary, c.Runs)
	}
	if !strings.Contains(res.stderr, "target failed") {
		t.Errorf("stderr: got %q, want the failed target named", res.stderr)
	}
	// In text, what the tables count for the failed run is said before
	// them: "0 answers" then "N answers paired" read as a contradiction.
	text := replayctl(t, "compare", tp, "--primary", cmdTarget(t), "--candidate", "cmd:"+filepath.Join(t.TempDir(), "no-such-server"))
	if text.code != 3 || !strings.Contains(text.stdout, "the candidate's target failed: each answer it did not give is a change at $, and its latency rows are empty") {
		t.Errorf("text: exit %d, stdout:\n%s\nwant 3 and what the failed run means for the tables", text.code, text.stdout)
	}
}

// TestCompareBadInput: bad usage exits 2 with a message naming the flag,
// before anything is replayed.
func TestCompareBadInput(t *testing.T) {
	tp := filepath.Join("examples", "quickstart.jsonl")
	good := "http://127.0.0.1:1/mcp"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no primary", []string{"compare", tp, "--candidate", good}, "--primary: give the target"},
		{"no candidate", []string{"compare", tp, "--primary", good}, "--candidate: give the target"},
		{"neither URL nor command", []string{"compare", tp, "--primary", "node server.js", "--candidate", good}, `--primary "node server.js": want an http(s):// URL or a command after cmd:`},
		{"URL without a host", []string{"compare", tp, "--primary", good, "--candidate", "http:///mcp"}, "--candidate http:///mcp: the URL has no host"},
		{"unclosed quote", []string{"compare", tp, "--primary", "cmd:node 'server.js", "--candidate", good}, "a single quote is not closed"},
		{"empty command", []string{"compare", tp, "--primary", "cmd:  ", "--candidate", good}, "no command after cmd:"},
		{"negative margin", []string{"compare", tp, "--primary", good, "--candidate", good, "--relative-margin", "-5"}, "--relative-margin -5: want a percentage from 0 to 100"},
		{"alpha", []string{"compare", tp, "--primary", good, "--candidate", good, "--latency-alpha", "2"}, "--latency-alpha 2: want a probability"},
		{"bad ignore", []string{"compare", tp, "--primary", good, "--candidate", good, "--ignore", "result["}, "--ignore or --normalize"},
		{"report format", []string{"compare", tp, "--primary", good, "--candidate", good, "--report", "out.txt"}, "name the file .json or .html"},
		{"output", []string{"compare", tp, "--primary", good, "--candidate", good, "-o", "html"}, `-o "html": want text or json`},
		{"stepped", []string{"compare", tp, "--primary", good, "--candidate", good, "--speed", "stepped"}, "--speed stepped"},
		{"missing tape", []string{"compare", "no-such.jsonl", "--primary", good, "--candidate", good}, "no-such.jsonl"},
		{"two tapes", []string{"compare", tp, tp, "--primary", good, "--candidate", good}, "want: replayctl compare TAPE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := replayctl(t, c.args...)
			if res.code != 2 || !strings.Contains(res.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, c.want)
			}
		})
	}
}

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"node server.js", []string{"node", "server.js"}, false},
		{"  node   a\tb  ", []string{"node", "a", "b"}, false},
		{`python -c 'print("hi there")'`, []string{"python", "-c", `print("hi there")`}, false},
		{`a "b c" d\ e`, []string{"a", "b c", "d e"}, false},
		{`"x\"y\\z\n"`, []string{`x"y\z\n`}, false},
		{`a''b ""`, []string{"ab", ""}, false},
		{"", nil, false},
		{`'open`, nil, true},
		{`"open`, nil, true},
		{`trailing\`, nil, true},
	} {
		got, err := splitWords(c.in)
		if (err != nil) != c.err || fmt.Sprint(got) != fmt.Sprint(c.want) || len(got) != len(c.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"node server.js", `a "b c" 'd'`, `x\ y`, `"\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitWords(s)
		if err == nil && !strings.ContainsAny(s, `'"\`) && len(words) != len(strings.Fields(s)) {
			t.Errorf("splitWords(%q) = %q; want the fields %q", s, words, strings.Fields(s))
		}
	})
}

// TestCompareTornTape: a line torn in the middle of the tape is bad
// input: exit 2 naming the line, nothing compared.
func TestCompareTornTape(t *testing.T) {
	b, err := os.ReadFile(volatileCLITape(t))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[5] = lines[5][:len(lines[5])/2] + "\n"
	torn := filepath.Join(t.TempDir(), "torn.jsonl")
	if err := os.WriteFile(torn, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "compare", torn, "--primary", cmdTarget(t), "--candidate", cmdTarget(t))
	if res.code != 2 || !strings.Contains(res.stderr, "line 6") || res.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing on stdout, the torn line 6 named", res.code, res.stdout, res.stderr)
	}
}

// TestCompareHTTP: URL targets, with a --header sent to each (the
// servers refuse requests without it); the candidate answering greet in
// French is reported.
func TestCompareHTTP(t *testing.T) {
	tp := volatileCLITape(t)
	need := []string{"-require-header", "X-Compare:yes"}
	primary, secondary := testserver.VolatileHTTP(t, need...), testserver.VolatileHTTP(t, need...)
	candidate := testserver.VolatileHTTP(t, append(need, "-lang", "fr")...)
	if res := replayctl(t, "compare", tp, "--primary", primary, "--candidate", candidate, "-o", "json"); res.code != 3 {
		t.Errorf("without the header: exit %d, want 3 (the targets refuse)\n%s", res.code, res.stderr)
	}
	res := replayctl(t, "compare", tp, "--primary", primary, "--candidate", candidate,
		"--secondary", secondary, "--header", "X-Compare:yes", "-o", "json")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	c := decodeCompare(t, res)
	if len(c.Changed) != 1 || c.Changed[0].Path != "result.structuredContent.lang" || c.Runs[2].Role != "secondary" {
		t.Errorf("got changed %+v, runs %+v; want greet's lang, three runs", c.Changed, c.Runs)
	}
}
