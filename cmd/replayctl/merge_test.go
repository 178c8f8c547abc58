package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// mergeReport is what the merge tests read of a JSON report.
type mergeReport struct {
	Summary struct {
		Sent     int64  `json:"sent"`
		Received int64  `json:"received"`
		Sessions int    `json:"sessions"`
		Tape     string `json:"tape"`
		Passed   bool   `json:"passed"`
	} `json:"summary"`
	Performance struct {
		LatencyMS map[string]float64 `json:"latency_ms"`
		Requests  int64              `json:"requests"`
		Answered  int64              `json:"answered"`
	} `json:"performance"`
	Validation struct {
		Passed int64 `json:"passed"`
	} `json:"validation"`
	Timeline []struct {
		Method    string   `json:"method"`
		Dir       string   `json:"dir"`
		LatencyMS *float64 `json:"latency_ms"`
		Verdict   string   `json:"verdict"`
	} `json:"timeline"`
	TimelineOmitted int64 `json:"timeline_omitted"`
	Thresholds      []struct {
		Expr   string `json:"expr"`
		Passed bool   `json:"passed"`
	} `json:"thresholds"`
	Histograms struct {
		Latency struct {
			Count int64  `json:"count"`
			HDR   string `json:"hdr"`
		} `json:"latency"`
	} `json:"histograms"`
}

func readMergeReport(t *testing.T, path string) mergeReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r mergeReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// latencySamples are the latencies of a report's timeline, in
// microseconds: the requests the client sent and had answered in time,
// but the handshake (initialize, server/discover), which are what the
// latency histogram holds (the handshake's is apart since issue 23).
func latencySamples(t *testing.T, r mergeReport) []int64 {
	t.Helper()
	if r.TimelineOmitted > 0 {
		t.Fatalf("the timeline omits %d entries: its samples are not all the histogram's", r.TimelineOmitted)
	}
	var us []int64
	for _, e := range r.Timeline {
		if e.Dir == "c2s" && e.LatencyMS != nil && e.Verdict != "timeout" && e.Method != "initialize" && e.Method != "server/discover" {
			us = append(us, int64(math.Round(*e.LatencyMS*1000)))
		}
	}
	return us
}

// TestMergeTwoRunsIsOneHistogram replays a load twice, in two halves,
// each writing a JSON report, merges the reports with replayctl merge, and
// checks that the merged latency histogram is, bucket for bucket, the
// histogram of both runs' samples (read from their timelines), and that
// the merged percentiles are that histogram's: against the built-in mock
// and against a real server (the go-sdk conformance server over HTTP).
func TestMergeTwoRunsIsOneHistogram(t *testing.T) {
	t.Run("mock", func(t *testing.T) {
		mergeTwoRuns(t, "examples/quickstart.jsonl", nil, 20*7*2) // 8 requests, initialize apart
	})
	t.Run("go-sdk/http", func(t *testing.T) {
		tg := realTargets()[3]
		d, targetArgs := tg.dialer(t)
		path := recordTape(t, d, tg.transport, script(tg.tool, tg.args[0], tg.args[1]))
		mergeTwoRuns(t, path, targetArgs, 20*4*2) // 5 requests, initialize apart
	})
}

// mergeTwoRuns replays tape twice with 20 sessions each, merges the two
// reports and checks the merge against the samples of both runs, of which
// there must be at least minSamples.
func mergeTwoRuns(t *testing.T, tape string, targetArgs []string, minSamples int) {
	dir := t.TempDir()
	halves := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	for _, p := range halves {
		res := replayctl(t, append([]string{"run", tape, "--speed", "fast", "--sessions", "20", "--report", p}, targetArgs...)...)
		if res.code != 0 {
			t.Fatalf("run --report %s: exit %d\n%s", p, res.code, res.stderr)
		}
	}
	merged := filepath.Join(dir, "merged.json")
	res := replayctl(t, "merge", halves[0], halves[1], "--report", merged, "-o", "json")
	if res.code != 0 {
		t.Fatalf("merge: exit %d\n%s", res.code, res.stderr)
	}
	var stdout mergeReport
	if err := json.Unmarshal([]byte(res.stdout), &stdout); err != nil {
		t.Fatalf("merge -o json: stdout is not a JSON report: %v\n%s", err, res.stdout)
	}

	a, b, m := readMergeReport(t, halves[0]), readMergeReport(t, halves[1]), readMergeReport(t, merged)
	samples := append(latencySamples(t, a), latencySamples(t, b)...)
	if int64(len(samples)) != a.Histograms.Latency.Count+b.Histograms.Latency.Count || len(samples) < minSamples {
		t.Fatalf("%d latencies in the timelines, histograms count %d + %d; want equal and at least %d",
			len(samples), a.Histograms.Latency.Count, b.Histograms.Latency.Count, minSamples)
	}
	want := hdrhistogram.New(1, 3_600_000_000, 3)
	minUS, maxUS, sumUS := samples[0], samples[0], int64(0)
	for _, us := range samples {
		if err := want.RecordValue(us); err != nil {
			t.Fatal(err)
		}
		minUS, maxUS, sumUS = min(minUS, us), max(maxUS, us), sumUS+us
	}
	got, err := hdrhistogram.Decode([]byte(m.Histograms.Latency.HDR))
	if err != nil {
		t.Fatalf("merged histograms.latency.hdr: %v", err)
	}
	if !got.Equals(want) {
		t.Errorf("merged latency histogram (%d values) differs from the histogram of both runs' samples (%d values)", got.TotalCount(), want.TotalCount())
	}
	wantStats := map[string]float64{
		"count": float64(len(samples)), "min": float64(minUS) / 1000, "max": float64(maxUS) / 1000,
		"avg": math.Round(float64(sumUS)/float64(len(samples))) / 1000,
	}
	for name, q := range map[string]float64{"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p999": 99.9} {
		wantStats[name] = float64(min(max(want.ValueAtPercentile(q), minUS), maxUS)) / 1000
	}
	for name, w := range wantStats {
		if g := m.Performance.LatencyMS[name]; g != w {
			t.Errorf("merged latency_ms.%s = %v, want %v (one histogram of both runs)", name, g, w)
		}
		if g := stdout.Performance.LatencyMS[name]; g != w {
			t.Errorf("stdout latency_ms.%s = %v, want %v", name, g, w)
		}
	}
	if m.Summary.Sent != a.Summary.Sent+b.Summary.Sent || m.Performance.Answered != a.Performance.Answered+b.Performance.Answered ||
		m.Validation.Passed != a.Validation.Passed+b.Validation.Passed || m.Summary.Sessions != 40 {
		t.Errorf("merged sent %d answered %d passed %d sessions %d; want the sums %d, %d, %d, 40",
			m.Summary.Sent, m.Performance.Answered, m.Validation.Passed, m.Summary.Sessions,
			a.Summary.Sent+b.Summary.Sent, a.Performance.Answered+b.Performance.Answered, a.Validation.Passed+b.Validation.Passed)
	}
	if len(m.Timeline) != len(a.Timeline)+len(b.Timeline) || !m.Summary.Passed {
		t.Errorf("merged timeline %d entries, passed %v; want %d and true", len(m.Timeline), m.Summary.Passed, len(a.Timeline)+len(b.Timeline))
	}

	// A threshold is judged on the merged figures: each half has fewer
	// requests than this, the merge does not.
	limit := fmt.Sprintf("requests<%d", m.Performance.Requests)
	res = replayctl(t, "merge", halves[0], halves[1], "--threshold", limit)
	if res.code != 1 || !strings.Contains(res.stdout, limit) {
		t.Errorf("merge --threshold %s: exit %d, want 1 and the threshold in the summary\n%s\n%s", limit, res.code, res.stdout, res.stderr)
	}
}

// TestMergeBadInput: what cannot be merged is refused with exit 2 and an
// error naming the file and the field.
func TestMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--report", good); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	other := filepath.Join(dir, "other.json")
	if res := replayctl(t, "run", "examples/everything.jsonl", "--speed", "fast", "--report", other); res.code > 1 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	variant := func(name string, edit func(h map[string]any)) string {
		var d map[string]any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hists := func(d map[string]any) map[string]any {
		h, ok := d["histograms"].(map[string]any)
		if !ok {
			t.Fatalf("%s has no histograms section", good)
		}
		return h
	}
	corrupt := variant("corrupt.json", func(d map[string]any) {
		hists(d)["latency"].(map[string]any)["hdr"] = "HISTFAAAA!!not base64"
	})
	// The same buckets in another geometry: a histogram from elsewhere.
	foreign := hdrhistogram.New(1, 60_000_000, 2)
	_ = foreign.RecordValue(1000)
	enc, err := foreign.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	wrongConfig := variant("config.json", func(d map[string]any) {
		hists(d)["held"].(map[string]any)["hdr"] = string(enc)
	})
	old := variant("old.json", func(d map[string]any) { delete(d, "histograms") })
	newer := variant("newer.json", func(d map[string]any) { hists(d)["version"] = 99 })
	notJSON := filepath.Join(dir, "torn.json")
	if err := os.WriteFile(notJSON, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"corrupt base64", []string{corrupt, good}, []string{corrupt, "histograms.latency", "base64"}},
		{"another configuration", []string{good, wrongConfig}, []string{wrongConfig, "histograms.held", "significant digits"}},
		{"no histograms", []string{good, old}, []string{old, "no histograms section"}},
		{"newer version", []string{newer}, []string{newer, "histograms.version 99"}},
		{"torn file", []string{good, notJSON}, []string{notJSON, "not JSON"}},
		{"missing file", []string{filepath.Join(dir, "absent.json")}, []string{"absent.json"}},
		{"different tapes", []string{good, other}, []string{other, "--allow-different-tapes"}},
		{"no report", nil, []string{"REPORT.json"}},
		{"bad -o", []string{good, "-o", "yaml"}, []string{"-o"}},
		{"bad threshold", []string{good, "--threshold", "p99<<1"}, []string{"--threshold"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, append([]string{"merge"}, tc.args...)...)
			if res.code != 2 {
				t.Errorf("exit %d, want 2\nstderr: %s", res.code, res.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("stderr %q: want it to say %q", res.stderr, w)
				}
			}
		})
	}

	// Different tapes, allowed.
	res := replayctl(t, "merge", good, other, "--allow-different-tapes", "-o", "json")
	if res.code > 1 {
		t.Fatalf("merge --allow-different-tapes: exit %d\n%s", res.code, res.stderr)
	}
	var m mergeReport
	if err := json.Unmarshal([]byte(res.stdout), &m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Summary.Tape, "quickstart") || !strings.Contains(m.Summary.Tape, "everything") {
		t.Errorf("merged tape %q: want both tapes named", m.Summary.Tape)
	}
}
