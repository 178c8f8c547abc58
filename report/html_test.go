package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// failingReport is the sample report with two thresholds, one failing.
func failingReport(t testing.TB) Report {
	r := sampleReport()
	var ts []Threshold
	for _, s := range []string{"p99<10ms", "validation_failed==0", "error_rate<50%"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	r.ApplyThresholds(ts)
	return r
}

func renderHTML(t testing.TB, r Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// externalRefs are what would make the page load something from elsewhere.
var externalRefs = []string{`src="http`, `href="http`, `src='http`, `href='http`, `src="//`, `href="//`, "@import", "url(http", "url(//", "<link", "<script", "<iframe", "<img"}

func TestWriteHTMLSections(t *testing.T) {
	page := renderHTML(t, failingReport(t))
	want := []string{
		"<!DOCTYPE html>",
		`<span class="badge fail">FAIL</span>`,
		`id="summary"`, "Replay of weather.jsonl", "run <code>" + sampleRunID + "</code>", "4 sent, 3 received, 1 skipped (8 on tape)",
		`id="timeline"`, `<svg viewBox="0 0 960.0 340.0"`, `class="v-failed"`, `class="v-timeout"`, "All 5 messages",
		`id="histogram"`, `<rect class="bar"`, "≤20ms",
		`id="sessions"`, "<code>s1</code>",
		`id="thresholds"`, "Thresholds: 3, 2 failed", "p99 was 12.5ms", "validation_failed was 1",
		`id="failures"`, `<table class="diffs">`, `<col class="path"><col class="kind">`, `<div class="val">`, "Validation failures: 1", "result<wbr>.content<wbr>[0]<wbr>.text", "&#34;sunny&#34;", "&#34;rain&#34;", "result<wbr>.isError", "(absent)",
		`id="errors"`, "no answer within 5s",
		"held (causal order, in-flight limit)", "schedule lag (the replayer late)",
		`<div class="label">load</div><div class="value">delivered: 2 requests at 50/s (&#43;1 handshake, not paced), 100% of the 50/s intended (lag p99 1ms)</div>`,
		`id="chaos"`, "answer withheld",
		"warning: tape has no end line",
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	// A paced replay shows one rate, the load card's achieved one: not
	// the throughput beside it (issue 23).
	if strings.Contains(page, "0.4 requests/s") {
		t.Errorf("the page of a paced replay shows the throughput (0.4 requests/s) beside the load's achieved rate")
	}
	for _, bad := range externalRefs {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q: it must load nothing from elsewhere", bad)
		}
	}
	if n := strings.Count(page, `<g class="m">`); n != 5 {
		t.Errorf("timeline marks: got %d, want 5", n)
	}

	// A report of no message fails: nothing was checked.
	empty := renderHTML(t, NewCollector().Report(Meta{Tape: "empty.jsonl"}))
	for _, w := range []string{`<span class="badge fail">FAIL</span>`, "nothing checked", "tape empty.jsonl holds no MCP message", "No message in the report", "No request was answered", "Validation failures: 0"} {
		if !strings.Contains(empty, w) {
			t.Errorf("the empty report's page lacks %q", w)
		}
	}
	if strings.Contains(empty, `id="thresholds"`) || strings.Contains(empty, `id="errors"`) {
		t.Errorf("the empty report's page has a thresholds or errors section, want neither")
	}
	if strings.Contains(empty, `<div class="label">load</div>`) {
		t.Errorf("the page of a report with no speed has a load card, want none")
	}
}

func TestWriteHTMLEscapes(t *testing.T) {
	c := NewCollector()
	evil := `<script>alert(1)</script>`
	c.Add(Result{Seq: 1, Session: evil, Method: `"><img src=x onerror=alert(1)>`, Dir: DirC2S, Kind: KindRequest,
		Due: at(0), Sent: at(0), Answered: at(time.Millisecond), Verdict: Failed,
		Differences: []Difference{{Path: `result.</td><script>x</script>`, Expected: json.RawMessage(`"</style><script>1</script>"`), Actual: json.RawMessage("<iframe src=http://x>"), Kind: "changed"}}})
	c.Add(Result{Seq: 2, Session: "s1", Verdict: Error, Err: `<link href="http://evil/x.css">`})
	c.AddFault(Fault{Seq: 2, Session: "s1", Kind: "malformed", Detail: `@import url(http://evil)`})
	page := renderHTML(t, c.Report(Meta{Tape: `t<b>.jsonl`, Target: `javascript:alert(1)`, Warnings: []string{evil}}))
	// "@import" and "url(" may appear as text; in text they do nothing.
	for _, bad := range append(externalRefs[:6], "<link", "<script", "<iframe", "<img", "<b>") {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q unescaped", bad)
		}
	}
	for _, w := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "t&lt;b&gt;.jsonl", `\u003ciframe src=http://x\u003e`} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks the escaped %q", w)
		}
	}
}

func TestBreakablePath(t *testing.T) {
	tests := []struct{ path, want string }{
		{"", ""},
		{"result", "result"},
		{"result.content[0].text", "result<wbr>.content<wbr>[0]<wbr>.text"},
		{".x", ".x"},
		{`a.<b>&"c"`, `a<wbr>.&lt;b&gt;&amp;&#34;c&#34;`},
	}
	for _, tt := range tests {
		if got := string(breakablePath(tt.path)); got != tt.want {
			t.Errorf("breakablePath(%q): got %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestWriteHTMLChaosSurvival(t *testing.T) {
	page := renderHTML(t, chaosReport())
	for _, w := range []string{
		`id="survival"`, "Chaos survival: 1 of 2 sessions survived",
		`<code>s1</code></td><td><span class="survived">survived</span></td><td class="num">1</td>`,
		`<code>s2</code></td><td><span class="broken">did not survive</span></td><td class="num">1</td><td>broken by seq 1 malformed (request body cut after 17 bytes)`,
		"<li>seq 2 tools/call: no answer after the fault (connection reset by peer)</li>",
		"2 faults injected (seed 7); 1 of 2 sessions survived",
		"warning: --chaos-from replays the faults of another tape (other.jsonl)",
		"Injected faults: 2",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}

	r := chaosReport()
	for i := range htmlSurvivalNotes + 3 {
		r.Chaos.Survival[1].Notes = append(r.Chaos.Survival[1].Notes, fmt.Sprintf("note %d", i))
	}
	page = renderHTML(t, r)
	if n := strings.Count(page, "<li>"); n != htmlSurvivalNotes+1 {
		t.Errorf("notes shown: got %d list items, want %d and one saying how many more", n, htmlSurvivalNotes+1)
	}
	if w := "… and 4 more notes (see the JSON report)"; !strings.Contains(page, w) {
		t.Errorf("the page lacks %q", w)
	}

	if page := renderHTML(t, sampleReport()); strings.Contains(page, `id="survival"`) {
		t.Errorf("a report with no survival verdict has a survival table, want none")
	}
}

func TestWriteHTMLAborted(t *testing.T) {
	r := passingReport()
	r.Abort("the target closed the connection at seq 2")
	page := renderHTML(t, r)
	for _, w := range []string{`<span class="badge fail">FAIL</span>`, `<div class="label">stopped early</div><div class="value">the target closed the connection at seq 2</div>`} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
}

func TestWriteHTMLTimelineCap(t *testing.T) {
	c := NewCollector(WithTimelineLimit(DefaultTimelineLimit))
	for _, r := range randomResults(DefaultTimelineLimit + 500) {
		c.Add(r)
	}
	r := c.Report(Meta{Tape: "load.jsonl"})
	page := renderHTML(t, r)
	if n := strings.Count(page, `<g class="m">`); n != maxChartMessages {
		t.Errorf("timeline marks: got %d, want %d", n, maxChartMessages)
	}
	if want := "1000 of the 10000 messages"; !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
	if want := "500 later messages were not kept"; !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
	if want := "--timeline-limit"; !strings.Contains(page, want) {
		t.Errorf("the page lacks %q", want)
	}
}

func TestSampleTimeline(t *testing.T) {
	mk := func(vs ...Verdict) []TimelineEntry {
		es := make([]TimelineEntry, len(vs))
		for i, v := range vs {
			es[i] = TimelineEntry{Seq: int64(i), Verdict: v}
		}
		return es
	}
	P, F, E := Passed, Failed, Error
	tests := []struct {
		name    string
		entries []TimelineEntry
		limit   int
		want    []int
	}{
		{"under the limit: all", mk(P, F, P), 5, []int{0, 1, 2}},
		{"evenly spread", mk(P, P, P, P, P, P, P, P), 4, []int{0, 2, 4, 6}},
		{"bad ones kept", mk(P, P, P, P, P, F, P, E), 4, []int{0, 3, 5, 7}},
		{"bad ones at most half", mk(F, F, F, F, F, F, P, P), 4, []int{0, 1, 2, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sampleTimeline(tt.entries, tt.limit)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLatencyHistogram(t *testing.T) {
	tests := []struct {
		name      string
		latencies []time.Duration
		want      []HistogramBucket
	}{
		{"none", nil, []HistogramBucket{}},
		{"spread", []time.Duration{500 * time.Microsecond, 500 * time.Microsecond, 501 * time.Microsecond, 3 * time.Millisecond, 5 * time.Millisecond, 40 * time.Millisecond},
			[]HistogramBucket{{0.5, 2}, {1, 1}, {2, 0}, {5, 2}, {10, 0}, {20, 0}, {50, 1}}},
		{"zero and the top", []time.Duration{0, 2 * time.Hour},
			func() []HistogramBucket {
				var bs []HistogramBucket
				for i, e := range bucketEdgesUS {
					n := int64(0)
					if i == 0 || i == len(bucketEdgesUS)-1 {
						n = 1
					}
					bs = append(bs, HistogramBucket{usToMS(e), n})
				}
				return bs
			}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector()
			for i, l := range tt.latencies {
				c.Add(request(int64(i), 0, 0, l, Passed))
			}
			got := c.Report(Meta{}).Performance.LatencyHistogram
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewHistChart(t *testing.T) {
	h := newHistChart([]HistogramBucket{{1, 10}, {2, 0}, {5, 1}})
	if len(h.Bars) != 3 || h.Max != 10 {
		t.Fatalf("got %d bars max %d, want 3 and 10", len(h.Bars), h.Max)
	}
	// The tallest bar fills the plot; a bar of 1 in 10 is still seen.
	if h.Bars[0].H != f1(histPlotH) || h.Bars[1].H != "0.0" || h.Bars[2].H != f1(histPlotH/10) {
		t.Errorf("heights: got %s %s %s, want %s 0.0 %s", h.Bars[0].H, h.Bars[1].H, h.Bars[2].H, f1(histPlotH), f1(histPlotH/10))
	}
	if h.Bars[2].Label != "≤5ms" {
		t.Errorf("label: got %q, want ≤5ms", h.Bars[2].Label)
	}
}

// passingReport is a small replay of two sessions where every answer
// matched.
func passingReport() Report {
	c := NewCollector(WithRunID(sampleRunID))
	c.Start(at(0))
	for i, s := range []string{"s1", "s2"} {
		base := time.Duration(i) * time.Millisecond
		c.Add(Result{Seq: 0, Session: s, Method: "initialize", Dir: DirC2S, Kind: KindRequest,
			Due: at(base), Sent: at(base), Answered: at(base + 2*time.Millisecond), Verdict: Passed})
		c.Add(Result{Seq: 1, Session: s, Method: "tools/list", Dir: DirC2S, Kind: KindRequest,
			Due: at(base + 5*time.Millisecond), Sent: at(base + 5*time.Millisecond), Answered: at(base + 9*time.Millisecond), Verdict: Passed})
		c.Add(Result{Seq: 2, Session: s, Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
			Due: at(base + 12*time.Millisecond), Sent: at(base + 12*time.Millisecond), Answered: at(base + 30*time.Millisecond), Verdict: Passed})
	}
	c.Finish(at(40 * time.Millisecond))
	return c.Report(Meta{Tape: "quickstart.jsonl", Sessions: 2, Target: "http://127.0.0.1:8080/mcp", Speed: speedOf("fast")})
}

// longFailureReport is failingReport with a difference whose path and
// values are long, as a real tool result's are: the table must wrap them.
func longFailureReport(t testing.TB) Report {
	r := failingReport(t)
	long := strings.Repeat("The forecast for Lisbon on Tuesday: sunny spells, a light breeze from the north-west, 21°C. ", 6)
	r.Validation.Failures[0].Differences = append(r.Validation.Failures[0].Differences,
		Difference{Path: "result.structuredContent.forecast.days[3].hourly[17].precipitation_probability_percent", Expected: json.RawMessage(`12`), Actual: json.RawMessage(`87`), Kind: "changed"},
		Difference{Path: "result.content[1].text", Expected: json.RawMessage(`"` + long + `"`), Actual: json.RawMessage(`"` + strings.ReplaceAll(long, "sunny", "rain") + `"`), Kind: "changed"},
		Difference{Path: "result.content[2].resource.blob", Expected: json.RawMessage(`"` + strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 12) + `"`), Kind: "missing"},
	)
	return r
}

// chaosReport is a chaos replay of two sessions: one survived its faults,
// the other was broken by one.
func chaosReport() Report {
	c := NewCollector(WithRunID(sampleRunID))
	c.Start(at(0))
	for i, s := range []string{"s1", "s2"} {
		base := time.Duration(i) * time.Millisecond
		c.Add(Result{Seq: 0, Session: s, Method: "initialize", Dir: DirC2S, Kind: KindRequest,
			Due: at(base), Sent: at(base), Answered: at(base + 2*time.Millisecond), Verdict: Passed})
		c.Add(Result{Seq: 1, Session: s, Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
			Due: at(base + 5*time.Millisecond), Sent: at(base + 5*time.Millisecond), Answered: at(base + 9*time.Millisecond), Verdict: Passed})
	}
	c.Add(Result{Seq: 2, Session: "s2", Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
		Due: at(15 * time.Millisecond), Sent: at(15 * time.Millisecond), Verdict: Error,
		Err: "connection reset by peer", ErrKind: "transport"})
	c.AddFault(Fault{Seq: 1, Session: "s1", Kind: "latency", Detail: "answer delayed 250ms"})
	c.AddFault(Fault{Seq: 1, Session: "s2", Kind: "malformed", Detail: "request body cut after 17 bytes"})
	c.Finish(at(40 * time.Millisecond))
	seed := int64(7)
	r := c.Report(Meta{Tape: "quickstart.jsonl", Sessions: 2, Target: "http://127.0.0.1:8080/mcp", Speed: speedOf("fast"), Seed: &seed,
		Warnings: []string{"--chaos-from replays the faults of another tape (other.jsonl)"}})
	broken := r.Chaos.Faults[1]
	r.Chaos.Survival = []Survival{
		{Session: "s1", Survived: true, Faults: 1},
		{Session: "s2", Survived: false, Faults: 1, BrokenBy: &broken, Notes: []string{"seq 2 tools/call: no answer after the fault (connection reset by peer)"}},
	}
	r.Summary.Passed = r.Passed()
	return r
}

// TestWriteHTMLInChromium opens a passing, a failing and a chaos report in
// headless Chromium, checks what its DOM holds, and takes a screenshot of
// each into the test's artifact directory (go test -artifacts keeps them)
// that must be a real picture: a PNG of the window's size, not one colour.
// It runs only where chromium is installed.
func TestWriteHTMLInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not on PATH, so the page is not opened in a browser (apt-get install chromium to run this test)")
	}
	if testing.Short() {
		t.Skip("-short: not starting chromium")
	}
	tests := []struct {
		name   string
		r      Report
		height int // of the window: the whole page, or its top
		want   []string
	}{
		{"passing", passingReport(), 2000, []string{
			`<span class="badge pass">PASS</span>`, "Replay of quickstart.jsonl", "6 sent, 6 received", "<svg", `<rect class="bar"`,
		}},
		{"failing", longFailureReport(t), 3200, []string{
			`<span class="badge fail">FAIL</span>`, "Replay of weather.jsonl", "4 sent, 3 received",
			"result<wbr>.content<wbr>[0]<wbr>.text", "result<wbr>.isError", "\"sunny\"", "\"rain\"", "precipitation_probability_percent",
			"threshold", "p99 was 12.5ms", "<svg", `class="v-failed"`, `<rect class="bar"`,
			"warning: tape has no end line",
		}},
		{"chaos", chaosReport(), 2000, []string{
			`<span class="badge fail">FAIL</span>`, `id="survival"`, "did not survive", "survived", "broken by seq 1 malformed",
			"no answer after the fault", "warning: --chaos-from",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.html")
			if err := WriteFile(path, tt.r); err != nil {
				t.Fatal(err)
			}
			dom := chromium(t, bin, dir, "--dump-dom", "file://"+path)
			for _, w := range tt.want {
				if !strings.Contains(string(dom), w) {
					t.Errorf("the DOM chromium built lacks %q", w)
				}
			}
			if t.Failed() {
				t.Logf("DOM:\n%s", dom)
			}
			shot := filepath.Join(t.ArtifactDir(), tt.name+".png")
			chromium(t, bin, dir, "--hide-scrollbars", fmt.Sprintf("--window-size=1280,%d", tt.height), "--screenshot="+shot, "file://"+path)
			checkScreenshot(t, shot, 1280, tt.height)
		})
	}
}

// chromium runs headless Chromium with args and returns its stdout.
func chromium(t *testing.T, bin, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// checkScreenshot checks that path is a PNG of w×h pixels with something
// drawn on it: more than a few kilobytes, and many colours.
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 20_000 {
		t.Errorf("screenshot %s: %d bytes, want a picture of a page (at least 20 kB)", path, st.Size())
	}
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s is not a PNG: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot %s: got %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	colours := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			colours[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)] = true
		}
	}
	if len(colours) < 16 {
		t.Errorf("screenshot %s: %d colours, want a drawn page (at least 16)", path, len(colours))
	}
	t.Logf("screenshot %s: %d bytes, %d colours", path, st.Size(), len(colours))
}

func TestWriteFileHTMLAndXML(t *testing.T) {
	dir := t.TempDir()
	r := failingReport(t)
	for _, name := range []string{"r.html", "r.HTM", "r.xml"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, r); err != nil {
			t.Fatalf("WriteFile(%s): %v", name, err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if strings.HasSuffix(name, ".xml") {
			err = r.WriteJUnit(&want)
		} else {
			err = r.WriteHTML(&want)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: got %d bytes that differ from the writer's %d", name, len(got), want.Len())
		}
	}
}
