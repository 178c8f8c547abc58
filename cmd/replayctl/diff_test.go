package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testleak"
)

const diffExample = "examples/go-sdk-2025.jsonl"

// editTape writes a copy of the tape at src (relative to the repository
// root) into a temporary folder, each message line's msg passed through
// edit with the line's seq, and returns its absolute path.
func editTape(t *testing.T, src string, edit func(seq int64, msg map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../..", src))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l["type"] == "message" {
			edit(int64(l["seq"].(float64)), l["msg"].(map[string]any))
			nb, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			line = string(nb)
		}
		out = append(out, line)
	}
	path := filepath.Join(t.TempDir(), "b.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// brokenCopy is the example with test_simple_text gone from tools/list
// (seq 4) and its call (seq 6) answered by an error, and the description
// of test_image_content changed.
func brokenCopy(t *testing.T) string {
	return editTape(t, diffExample, func(seq int64, msg map[string]any) {
		switch seq {
		case 4:
			res := msg["result"].(map[string]any)
			var kept []any
			for _, tool := range res["tools"].([]any) {
				tm := tool.(map[string]any)
				switch tm["name"] {
				case "test_simple_text":
					continue
				case "test_image_content":
					tm["description"] = "Returns a picture"
				}
				kept = append(kept, tool)
			}
			res["tools"] = kept
		case 6:
			delete(msg, "result")
			msg["error"] = map[string]any{"code": -32602, "message": "unknown tool"}
		}
	})
}

type diffJSON struct {
	Summary struct {
		Changes     int            `json:"changes"`
		Breaking    int            `json:"breaking"`
		NonBreaking int            `json:"non_breaking"`
		Paired      int            `json:"paired"`
		ByKind      map[string]int `json:"by_kind"`
	} `json:"summary"`
	Changes []struct {
		Kind     string          `json:"kind"`
		Breaking bool            `json:"breaking"`
		Method   string          `json:"method"`
		Name     string          `json:"name"`
		Path     string          `json:"path"`
		A        json.RawMessage `json:"a"`
		B        json.RawMessage `json:"b"`
		Detail   string          `json:"detail"`
		SeqA     *int64          `json:"seq_a"`
		SeqB     *int64          `json:"seq_b"`
	} `json:"changes"`
	Unpaired []map[string]any `json:"unpaired"`
}

func decodeDiff(t *testing.T, s string) diffJSON {
	t.Helper()
	var d diffJSON
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("diff -o json: %v\n%s", err, s)
	}
	return d
}

func TestDiffSameTapeNoChanges(t *testing.T) {
	res := replayctl(t, "diff", diffExample, diffExample, "--fail-on-breaking")
	if res.code != 0 || !strings.Contains(res.stdout, "no changes") {
		t.Fatalf("exit %d, want 0 and \"no changes\"\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	d := decodeDiff(t, replayctl(t, "diff", diffExample, diffExample, "-o", "json").stdout)
	if d.Summary.Changes != 0 || len(d.Changes) != 0 || len(d.Unpaired) != 0 || d.Summary.Paired != 18 {
		t.Errorf("summary %+v changes %d unpaired %d; want none and 18 requests paired", d.Summary, len(d.Changes), len(d.Unpaired))
	}
}

func TestDiffBreakingChanges(t *testing.T) {
	b := brokenCopy(t)
	res := replayctl(t, "diff", diffExample, b)
	if res.code != 0 {
		t.Fatalf("without --fail-on-breaking: exit %d, want 0\nstderr:\n%s", res.code, res.stderr)
	}
	out := res.stdout
	brk, other := strings.Index(out, "BREAKING CHANGES (2)"), strings.Index(out, "OTHER CHANGES (1)")
	if brk < 0 || other < brk {
		t.Fatalf("want BREAKING CHANGES (2) before OTHER CHANGES (1):\n%s", out)
	}
	for _, want := range []string{`tools/list "test_simple_text"`, "tool_removed", `tools/call "test_simple_text"`,
		"success_to_error", "JSON-RPC error -32602: unknown tool", `tools/list "test_image_content"`, "description_changed  description:"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour escapes in output to a pipe:\n%q", out)
	}

	res = replayctl(t, "diff", diffExample, b, "--fail-on-breaking")
	if res.code != 1 || res.stderr != "" {
		t.Errorf("--fail-on-breaking: exit %d stderr %q, want 1 and nothing on stderr", res.code, res.stderr)
	}

	res = replayctl(t, "diff", diffExample, b, "-o", "json", "--fail-on-breaking")
	if res.code != 1 {
		t.Errorf("-o json --fail-on-breaking: exit %d, want 1", res.code)
	}
	d := decodeDiff(t, res.stdout)
	if d.Summary.Changes != 3 || d.Summary.Breaking != 2 || d.Summary.NonBreaking != 1 ||
		d.Summary.ByKind["tool_removed"] != 1 || d.Summary.ByKind["success_to_error"] != 1 || d.Summary.ByKind["description_changed"] != 1 {
		t.Fatalf("summary %+v, want 3 changes: tool_removed and success_to_error (breaking), description_changed", d.Summary)
	}
	for i, c := range d.Changes {
		if c.SeqA == nil || c.SeqB == nil || c.Method == "" {
			t.Errorf("change %d %+v: want method, seq_a and seq_b", i, c)
		}
		if c.Breaking != (i < 2) {
			t.Errorf("change %d %s: breaking %v; breaking ones come first", i, c.Kind, c.Breaking)
		}
	}
	if c := d.Changes[0]; c.Kind != "success_to_error" || c.Name != "test_simple_text" || *c.SeqA != 6 || *c.SeqB != 6 ||
		!strings.Contains(string(c.B), "-32602") || !strings.Contains(string(c.A), "simple text response") {
		t.Errorf("first change %+v, want success_to_error of test_simple_text at seq 6, with both answers", c)
	}
	if c := d.Changes[1]; c.Kind != "tool_removed" || c.Name != "test_simple_text" || c.B != nil || !strings.Contains(string(c.A), `"inputSchema"`) {
		t.Errorf("second change %+v, want tool_removed test_simple_text with its definition as a", c)
	}
}

// Only non-breaking changes: --fail-on-breaking exits 0.
func TestDiffNonBreakingPasses(t *testing.T) {
	b := editTape(t, diffExample, func(seq int64, msg map[string]any) {
		if seq == 6 {
			msg["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "Another text"}}}
		}
	})
	res := replayctl(t, "diff", diffExample, b, "--fail-on-breaking", "-o", "json")
	d := decodeDiff(t, res.stdout)
	if res.code != 0 || d.Summary.Changes != 1 || len(d.Changes) != 1 || d.Changes[0].Kind != "answer_changed" || d.Changes[0].Path != "result.content[0].text" {
		t.Errorf("exit %d, changes %+v; want 0 and one answer_changed at result.content[0].text", res.code, d.Changes)
	}
	// --ignore takes that path out.
	res = replayctl(t, "diff", diffExample, b, "--ignore", "result.content[*].text", "-o", "json")
	if d := decodeDiff(t, res.stdout); res.code != 0 || d.Summary.Changes != 0 {
		t.Errorf("--ignore: exit %d summary %+v, want no changes", res.code, d.Summary)
	}
}

// --config reads the validation section: a normaliser of one's own.
func TestDiffConfigNormalize(t *testing.T) {
	a := editTape(t, diffExample, func(seq int64, msg map[string]any) {
		if seq == 6 {
			msg["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "took 12 ms"}}}
		}
	})
	b := editTape(t, diffExample, func(seq int64, msg map[string]any) {
		if seq == 6 {
			msg["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "took 31 ms"}}}
		}
	})
	if d := decodeDiff(t, replayctl(t, "diff", a, b, "-o", "json").stdout); d.Summary.Changes != 1 {
		t.Fatalf("without config: %+v, want the one answer_changed", d.Summary)
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("validation:\n  normalize:\n    - regex: 'took \\d+ ms'\n      placeholder: '<took>'\n"), 0o644)
	res := replayctl(t, "diff", a, b, "--config", cfg, "-o", "json")
	if d := decodeDiff(t, res.stdout); res.code != 0 || d.Summary.Changes != 0 {
		t.Errorf("with %s: exit %d %+v, want no changes\n%s", cfg, res.code, d.Summary, res.stderr)
	}
}

func TestDiffBadInput(t *testing.T) {
	dir := t.TempDir()
	notJSONRPC := editTape(t, diffExample, func(seq int64, msg map[string]any) {
		if seq == 3 {
			delete(msg, "jsonrpc")
			delete(msg, "method")
		}
	})
	torn := filepath.Join(dir, "torn.jsonl")
	b, _ := os.ReadFile(filepath.Join("../..", diffExample))
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(torn, []byte(lines[0]+lines[1]+"{not json\n"+strings.Join(lines[2:], "")), 0o644)
	badCfg := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badCfg, []byte("validation:\n  normalise: [uuid]\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing tape", []string{"diff", diffExample, filepath.Join(dir, "nope.jsonl")}, "nope.jsonl"},
		{"not JSON-RPC", []string{"diff", diffExample, notJSONRPC}, "b.jsonl line 5 (seq 3)"},
		{"torn line", []string{"diff", torn, diffExample}, "line 3"},
		{"one tape", []string{"diff", diffExample}, "want: replayctl diff A B"},
		{"bad output", []string{"diff", diffExample, diffExample, "-o", "yaml"}, `-o "yaml"`},
		{"bad ignore", []string{"diff", diffExample, diffExample, "--ignore", "result[[x"}, "--ignore"},
		{"bad config", []string{"diff", diffExample, diffExample, "--config", badCfg}, "bad.yaml line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := replayctl(t, tt.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("exit %d stderr %q; want 2 and %q", res.code, res.stderr, tt.want)
			}
		})
	}
}

// Values under credential names are masked in both outputs.
func TestDiffMasksSecrets(t *testing.T) {
	secret := func(v string) func(int64, map[string]any) {
		return func(seq int64, msg map[string]any) {
			if seq == 6 {
				msg["result"] = map[string]any{"content": []any{}, "structuredContent": map[string]any{"api_key": v, "auth": map[string]any{"token": v}}}
			}
		}
	}
	a, b := editTape(t, diffExample, secret("sk-live-AAAA1111")), editTape(t, diffExample, secret("sk-live-BBBB2222"))
	for _, o := range []string{"text", "json"} {
		res := replayctl(t, "diff", a, b, "-o", o)
		if res.code != 0 || !strings.Contains(res.stdout, "[redacted]") {
			t.Errorf("-o %s: exit %d, want 0 and [redacted]:\n%s", o, res.code, res.stdout)
		}
		for _, s := range []string{"sk-live-AAAA1111", "sk-live-BBBB2222"} {
			if how, found := testleak.Find(res.stdout+res.stderr, s); found {
				t.Errorf("-o %s: secret %s in the output (%s):\n%s", o, s, how, res.stdout)
			}
		}
	}
}
