package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// sampleRunID is the run id of sampleReport, fixed so that the golden
// files stay the same from run to run.
const sampleRunID = "3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b"

// sampleReport is a small replay with one of everything.
func sampleReport() Report {
	// The handshake's latency counted in the headline, as before issue
	// 23, so that the figures the tests pin keep their meaning; the
	// default (left out) is tested in method_test.go.
	c := NewCollector(WithRunID(sampleRunID), IncludeHandshake())
	c.Start(at(0))
	c.Add(Result{Seq: 0, Session: "s1", Method: "initialize", Dir: DirC2S, Kind: KindRequest,
		Due: at(0), Sent: at(0), Answered: at(3 * time.Millisecond), Verdict: Passed})
	c.Add(Result{Seq: 2, Session: "s1", Method: "notifications/initialized", Dir: DirC2S, Kind: KindNotification,
		Due: at(5 * time.Millisecond), Sent: at(5*time.Millisecond + 250*time.Microsecond), Verdict: Sent})
	c.Add(Result{Seq: 3, Session: "s1", Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
		Due: at(10 * time.Millisecond), Sent: at(11 * time.Millisecond), Answered: at(23500 * time.Microsecond), Lag: time.Millisecond,
		Verdict: Failed, Differences: []Difference{
			{Path: "result.content[0].text", Expected: json.RawMessage(`"sunny"`), Actual: json.RawMessage(`"rain"`), Kind: "changed"},
			{Path: "result.isError", Actual: json.RawMessage(`true`), Kind: "extra"},
		}})
	c.Add(Result{Seq: 5, Session: "s1", Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
		Due: at(30 * time.Millisecond), Sent: at(30 * time.Millisecond), Verdict: Timeout,
		Err: "no answer within 5s; raise --timeout or check the server", ErrKind: "timeout"})
	c.Add(Result{Seq: 6, Session: "s1", Method: "notifications/progress", Dir: DirS2C, Kind: KindNotification,
		Answered: at(40 * time.Millisecond), Verdict: Warned})
	c.AddFault(Fault{Seq: 5, Session: "s1", Kind: "timeout", Detail: "answer withheld"})
	c.Finish(at(5040 * time.Millisecond))
	seed := int64(42)
	return c.Report(Meta{Tape: "weather.jsonl", Sessions: 1, TotalMessages: 8, Skipped: 1,
		Target: "http://127.0.0.1:8080/mcp", Speed: speedOf("10x"), Seed: &seed, Warnings: []string{"tape has no end line; 1 torn line dropped"}})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (run go test -update to create it): %v", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test -update if the change is intended):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestWriteJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json.golden", buf.Bytes())
}

// TestJSONContractFields checks the field names DESIGN.md promises, apart
// from the golden file, so that -update cannot silently drop one.
func TestJSONContractFields(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	contract := map[string][]string{
		"summary":                              {"run_id", "tape", "sessions", "total_messages", "sent", "received", "skipped", "duration_ms", "success_rate"},
		"performance":                          {"latency_ms", "latency_from_intended_ms", "schedule_lag_ms", "held_ms", "throughput_per_s", "error_rate"},
		"performance.latency_ms":               {"avg", "p50", "p95", "p99", "max"},
		"performance.latency_from_intended_ms": {"p50", "p99"},
		"performance.schedule_lag_ms":          {"p50", "p99", "max"},
		"performance.held_ms":                  {"count", "p50", "p99", "max"},
		"load":                                 {"applicable", "intended_rate_per_s", "achieved_rate_per_s", "late", "lag_p99_ms", "delivered", "verdict"},
		"validation":                           {"checked", "passed", "failed", "warnings", "failures"},
		"validation.failures.0":                {"seq", "session", "method", "differences"},
		"validation.failures.0.differences.0":  {"path", "expected", "actual", "kind"},
		"chaos":                                {"seed", "faults"},
		"chaos.faults.0":                       {"seq", "session", "kind", "detail"},
		"errors.0":                             {"seq", "session", "kind", "message"},
		"timeline.0":                           {"seq", "session", "method", "dir", "due_ms", "sent_ms", "latency_ms", "verdict"},
	}
	for path, fields := range contract {
		t.Run(path, func(t *testing.T) {
			var node any = doc
			for _, step := range strings.Split(path, ".") {
				switch n := node.(type) {
				case map[string]any:
					node = n[step]
				case []any:
					if len(n) == 0 {
						t.Fatalf("%s: empty list", path)
					}
					node = n[0]
				}
			}
			obj, ok := node.(map[string]any)
			if !ok {
				t.Fatalf("%s: got %T, want an object", path, node)
			}
			for _, f := range fields {
				if _, ok := obj[f]; !ok {
					t.Errorf("%s: field %q missing; have %v", path, f, keys(obj))
				}
			}
		})
	}
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestWriteTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.txt.golden", buf.Bytes())
}

func TestWriteText(t *testing.T) {
	many := NewCollector(WithFailureLimit(12))
	for i := range 15 {
		many.Add(Result{Seq: int64(i), Session: "s1", Method: "tools/call", Verdict: Failed,
			Differences: []Difference{{Path: "result.n", Expected: json.RawMessage(`1`), Actual: json.RawMessage(strings.Repeat("9", 200))}}})
	}
	tests := []struct {
		name        string
		r           Report
		color       bool
		want, avoid []string
	}{
		{
			name:  "plain",
			r:     sampleReport(),
			want:  []string{"4 sent", "3 received", "1 skipped (8 on tape)", "p50 3ms", "lag ", "2 passed, 1 failed, 1 warning (3 checked)", "0 errors, 1 timeout", "FAIL", "result.content[0].text: expected \"sunny\", got \"rain\"", "result.isError: expected (absent), got true", "seq 5 s1 tools/call timeout: no answer", "warning: tape has no end line"},
			avoid: []string{"\x1b[", "and "},
		},
		{
			name:  "color",
			r:     sampleReport(),
			color: true,
			want:  []string{ansiRed + "1 failed" + ansiReset, ansiBold + ansiRed + "FAIL" + ansiReset},
		},
		{
			name:  "first ten failures then the rest counted",
			r:     many.Report(Meta{}),
			want:  []string{"seq 9 s1", "and 5 more", "…"},
			avoid: []string{"seq 10 s1", strings.Repeat("9", 80)},
		},
		{
			name: "a live message not on the tape has no seq",
			r: func() Report {
				c := NewCollector()
				c.Add(Result{Seq: -1, Session: "s4", Dir: DirS2C, Method: "notifications/tools/list_changed", Verdict: Failed,
					Differences: []Difference{{Path: "$", Actual: json.RawMessage(`{"method":"notifications/tools/list_changed"}`)}}})
				c.Add(Result{Seq: -1, Session: "s4", Dir: DirS2C, Verdict: Error, ErrKind: "target", Err: "answer with id 9 matches no request in flight"})
				return c.Report(Meta{})
			}(),
			want:  []string{"(not on tape) s4 notifications/tools/list_changed", "(not on tape) s4 - target: answer with id 9"},
			avoid: []string{"#-1"},
		},
		{
			name:  "empty fails, naming the tape",
			r:     NewCollector().Report(Meta{Tape: "x.jsonl"}),
			want:  []string{"Replay of x.jsonl", "no request answered", "FAIL (nothing checked: tape x.jsonl holds no MCP message to replay"},
			avoid: []string{"Failures:", "Errors:", "PASS"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.r.WriteText(&buf, tt.color); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got:\n%s\nwant it to contain %q", got, w)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(got, a) {
					t.Errorf("got:\n%s\nwant it not to contain %q", got, a)
				}
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		path    string
		wantErr string
	}{
		{"json", filepath.Join(dir, "out.json"), ""},
		{"json upper case", filepath.Join(dir, "OUT.JSON"), ""},
		{"unknown", filepath.Join(dir, "out.csv"), "report format .csv unknown; use .json, .xml (JUnit) or .html"},
		{"no extension", filepath.Join(dir, "out"), "no extension"},
		{"missing directory", filepath.Join(dir, "nope", "out.json"), "does not exist; create it first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteFile(tt.path, sampleReport())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("WriteFile: got %v, want an error containing %q", err, tt.wantErr)
				}
				if _, serr := os.Stat(tt.path); !os.IsNotExist(serr) {
					t.Errorf("%s: got a file after an error, want none", tt.path)
				}
				return
			}
			if err != nil {
				t.Fatalf("WriteFile: got %v, want nil", err)
			}
			got, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			var back Report
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("read back: %v", err)
			}
			if back.Validation.Failed != 1 || back.Summary.Tape != "weather.jsonl" {
				t.Errorf("read back failed %d tape %q: want 1 weather.jsonl", back.Validation.Failed, back.Summary.Tape)
			}
		})
	}
	// Overwriting keeps one file and leaves no temporary file behind.
	if err := WriteFile(filepath.Join(dir, "out.json"), NewCollector().Report(Meta{})); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"OUT.JSON", "out.json"}; !slices.Equal(names, want) {
		t.Errorf("directory: got %v, want %v", names, want)
	}
}

// TestCheckPathWritable: a folder that cannot take the report is found by
// CheckPath, before a replay, with the path named; nothing is left there.
func TestCheckPathWritable(t *testing.T) {
	dir := testserver.UnwritableDir(t)
	path := filepath.Join(dir, "out.json")
	err := CheckPath(path)
	if err == nil || !strings.Contains(err.Error(), "report "+path+": cannot write in the folder "+dir) {
		t.Fatalf("CheckPath(%s): got %v, want it to say the folder cannot be written", path, err)
	}
	ok := filepath.Join(t.TempDir(), "out.html")
	if err := CheckPath(ok); err != nil {
		t.Fatalf("CheckPath(%s): got %v, want nil", ok, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(ok)); len(entries) != 0 {
		t.Errorf("CheckPath left %d files behind, want none", len(entries))
	}
}
