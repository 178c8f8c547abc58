package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// microResults are randomResults with every time on a whole microsecond,
// as the report's timeline keeps them, so that timelines compare exactly
// too.
func microResults(n int) []Result {
	rs := randomResults(n)
	for i := range rs {
		r := &rs[i]
		r.Due, r.Sent, r.Answered = r.Due.Round(time.Microsecond), r.Sent.Round(time.Microsecond), r.Answered.Round(time.Microsecond)
		r.Lag, r.Held = r.Lag.Round(time.Microsecond), r.Held.Round(time.Microsecond)
	}
	return rs
}

// throughJSON writes r as JSON and reads it back, as a report file goes.
func throughJSON(t testing.TB, r Report) *Report {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("Parse of WriteJSON's output: %v", err)
	}
	return back
}

// TestMergeReportsIsOneCollector splits a replay's results in three,
// writes each part's report as JSON, reads them back and merges them: the
// merged report is, byte for byte, the report of one collector fed every
// result — the histograms bucket for bucket, so the percentiles are
// exactly those of one histogram of all the samples — but for its
// run_id: the parts are runs of their own (one run_id would be the same
// run given twice), and the merge's is a fresh one.
func TestMergeReportsIsOneCollector(t *testing.T) {
	rs := microResults(3000)
	one := NewCollector(WithRunID("run"))
	one.Start(at(-time.Second))
	parts := []*Collector{NewCollector(WithRunID("part 1")), NewCollector(WithRunID("part 2")), NewCollector(WithRunID("part 3"))}
	parts[0].Start(at(-time.Second))
	bounds := []int{0, 1000, 1200, 3000}
	for p := range parts {
		for _, r := range rs[bounds[p]:bounds[p+1]] {
			one.Add(r)
			parts[p].Add(r)
			if r.Seq%7 == 0 {
				f := Fault{Seq: r.Seq, Session: r.Session, Kind: "delay"}
				one.AddFault(f)
				parts[p].AddFault(f)
			}
		}
	}
	one.Finish(at(time.Hour))
	parts[2].Finish(at(time.Hour))

	reports := make([]*Report, len(parts))
	for i, p := range parts {
		// Each part, a run of the tape, counts the whole tape's messages.
		reports[i] = throughJSON(t, p.Report(Meta{Tape: "t.jsonl", Sessions: 1, Speed: speedOf("realtime"), TotalMessages: int64(len(rs))}))
	}
	merged, err := Merge(reports)
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	freshRunID(t, merged, reports)
	merged.Summary.RunID = "run"
	want := one.Report(Meta{Tape: "t.jsonl", Sessions: 3, Speed: speedOf("realtime")})
	for _, h := range []struct {
		name      string
		got, want EncodedHistogram
	}{
		{"latency", merged.Histograms.Latency, want.Histograms.Latency},
		{"latency_from_intended", merged.Histograms.LatencyFromIntended, want.Histograms.LatencyFromIntended},
		{"schedule_lag", merged.Histograms.ScheduleLag, want.Histograms.ScheduleLag},
		{"held", merged.Histograms.Held, want.Histograms.Held},
	} {
		got, err := hdrhistogram.Decode([]byte(h.got.HDR))
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		w, err := hdrhistogram.Decode([]byte(h.want.HDR))
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		if !got.Equals(w) || h.got.Count != h.want.Count || h.got.Count == 0 {
			t.Errorf("%s: merged histogram of %d values differs from one collector's of %d", h.name, h.got.Count, h.want.Count)
		}
	}
	if g, w := merged.Performance.LatencyMS, want.Performance.LatencyMS; g != w {
		t.Errorf("merged latency %+v, want %+v", g, w)
	}
	var got, wantJSON bytes.Buffer
	if err := merged.WriteJSON(&got); err != nil {
		t.Fatal(err)
	}
	if err := want.WriteJSON(&wantJSON); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), wantJSON.Bytes()) {
		t.Errorf("merged report differs from one collector's:\n%s", firstDifference(got.String(), wantJSON.String()))
	}
}

// freshRunID checks that merged, a merge of whole runs, has a run_id
// of its own, none of theirs.
func freshRunID(t *testing.T, merged *Report, runs []*Report) {
	t.Helper()
	for _, r := range runs {
		if merged.Summary.RunID == r.Summary.RunID || merged.Summary.RunID == "" {
			t.Errorf("merged run_id %q, want a fresh one (a run's is %q)", merged.Summary.RunID, r.Summary.RunID)
		}
	}
}

// firstDifference shows the lines around the first line where a and b
// differ.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			lo := max(i-3, 0)
			return "line " + strconv.Itoa(i+1) + ":\ngot:\n" + strings.Join(la[lo:min(i+3, len(la))], "\n") + "\nwant:\n" + strings.Join(lb[lo:min(i+3, len(lb))], "\n")
		}
	}
	return "one is a prefix of the other"
}

// TestMergeHalvesPercentiles feeds the two halves of a set of samples to
// two collectors and checks the merged percentiles against one histogram
// fed both halves, sample by sample.
func TestMergeHalvesPercentiles(t *testing.T) {
	rs := microResults(2001)
	a, b := NewCollector(), NewCollector()
	all := newHist()
	for i, r := range rs {
		if i%2 == 0 {
			a.Add(r)
		} else {
			b.Add(r)
		}
		if r.Kind == KindRequest && !r.Sent.IsZero() && !r.Answered.IsZero() && r.Verdict != Timeout {
			all.record(r.Answered.Sub(r.Sent))
		}
	}
	m, err := Merge([]*Report{throughJSON(t, a.Report(Meta{Tape: "t"})), throughJSON(t, b.Report(Meta{Tape: "t"}))})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Performance.LatencyMS, all.stats(); got != want || want.Count < 1000 {
		t.Errorf("merged latency %+v, want %+v (one histogram of both halves)", got, want)
	}
	if got := m.Summary.RunID; got == a.runID || got == b.runID || got == "" {
		t.Errorf("run id %q of a merge of two runs: want a fresh one", got)
	}
}

func TestMergeThresholdsJudgedAgain(t *testing.T) {
	rs := microResults(400)
	one, a, b := NewCollector(), NewCollector(), NewCollector()
	for i, r := range rs {
		one.Add(r)
		[]*Collector{a, b}[i%2].Add(r)
	}
	ts := make([]Threshold, 0, 3)
	for _, x := range []string{"p99<1000ms", "requests<300", "p50>1ms"} {
		th, err := ParseThreshold(x)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	ra, rb := a.Report(Meta{Tape: "t"}), b.Report(Meta{Tape: "t"})
	ra.ApplyThresholds(ts[:2]) // each half has fewer than 300 requests: passes
	rb.ApplyThresholds(ts[1:2])
	if !ra.Passed() && ra.ThresholdsFailed() != nil {
		t.Fatalf("half a fails its thresholds %+v: the test needs it to pass", ra.ThresholdsFailed())
	}
	m, err := Merge([]*Report{throughJSON(t, ra), throughJSON(t, rb)}, MergeThresholds(ts[2]))
	if err != nil {
		t.Fatal(err)
	}
	want := one.Report(Meta{Tape: "t"})
	want.ApplyThresholds(ts)
	if len(m.Thresholds) != 3 {
		t.Fatalf("merged thresholds %+v: want the 3 expressions once each", m.Thresholds)
	}
	for i := range ts {
		g, w := m.Thresholds[i], want.Thresholds[i]
		if g.Expr != w.Expr || g.Value != w.Value || g.Passed != w.Passed {
			t.Errorf("threshold %d: got %+v, want %+v", i, g, w)
		}
	}
	if m.Passed() || m.Summary.Passed {
		t.Errorf("merged report passes with requests<300 failed on %d requests", m.Performance.Requests)
	}
}

func TestHistogramRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		ds   []time.Duration
	}{
		{"empty", nil},
		{"one", []time.Duration{1500 * time.Microsecond}},
		{"clamped", []time.Duration{-time.Second, 0, 2 * time.Hour, time.Hour}},
		{"spread", []time.Duration{time.Microsecond, time.Millisecond, 42 * time.Second, 59 * time.Minute, 3 * time.Nanosecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHist()
			for _, d := range tc.ds {
				h.record(d)
			}
			back, err := h.encode().decode()
			if err != nil {
				t.Fatalf("decode(encode()): %v", err)
			}
			if !back.h.Equals(h.h) || back.stats() != h.stats() || back.count != h.count || back.sumUS != h.sumUS || back.clamped != h.clamped {
				t.Errorf("round trip: got %+v, want %+v", back.stats(), h.stats())
			}
		})
	}
}

func TestHistogramBadInput(t *testing.T) {
	h := newHist()
	h.record(time.Millisecond)
	h.record(3 * time.Millisecond)
	good := h.encode()
	foreign := hdrhistogram.New(1, 60_000_000, 2)
	_ = foreign.RecordValue(1000)
	_ = foreign.RecordValue(3000)
	foreignHDR, _ := foreign.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	edit := func(f func(e *EncodedHistogram)) EncodedHistogram {
		e := good
		f(&e)
		return e
	}
	for _, tc := range []struct {
		name string
		e    EncodedHistogram
		want string
	}{
		{"missing", edit(func(e *EncodedHistogram) { e.HDR = "" }), "hdr is missing"},
		{"corrupt base64", edit(func(e *EncodedHistogram) { e.HDR = "HISTF!AAA" }), "base64"},
		{"too short", edit(func(e *EncodedHistogram) { e.HDR = "HIST" }), "too short"},
		{"not V2", edit(func(e *EncodedHistogram) { e.HDR = "AAAAAAAAAAAAAAAA" }), "V2 compressed"},
		{"truncated", edit(func(e *EncodedHistogram) { e.HDR = e.HDR[:16] }), "compressed"},
		{"another configuration", edit(func(e *EncodedHistogram) { e.HDR = string(foreignHDR) }), "2 significant digits"},
		{"count", edit(func(e *EncodedHistogram) { e.Count = 3 }), "count says 3"},
		{"min", edit(func(e *EncodedHistogram) { e.MinUS = 2000 }), "min_us 2000"},
		{"max", edit(func(e *EncodedHistogram) { e.MaxUS = histHighestUS + 1 }), "max_us"},
		{"sum", edit(func(e *EncodedHistogram) { e.SumUS = 1 }), "sum_us 1"},
		{"clamped", edit(func(e *EncodedHistogram) { e.Clamped = 5 }), "clamped 5"},
		{"negative", edit(func(e *EncodedHistogram) { e.SumUS = -4 }), "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.e.decode()
			if !errors.Is(err, ErrHistogram) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("decode: got %v, want an ErrHistogram saying %q", err, tc.want)
			}
		})
	}
}

func TestMergeRefusesBadReports(t *testing.T) {
	c := NewCollector()
	for _, r := range microResults(50) {
		c.Add(r)
	}
	good := c.Report(Meta{Tape: "a.jsonl"})
	dir := t.TempDir()
	write := func(name string, r Report) string {
		p := filepath.Join(dir, name)
		if err := WriteFile(p, r); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodPath := write("good.json", good)
	otherTape := good
	otherTape.Summary.Tape = "b.jsonl"
	noHists := good
	noHists.Histograms = Histograms{}
	badConfig := good
	badConfig.Histograms.Config.SignificantDigits = 2
	badHDR := good
	badHDR.Histograms.ScheduleLag.HDR = "@@"
	badSpan := good
	badSpan.Histograms.RequestsSent.Last = time.Time{}
	for _, tc := range []struct {
		name     string
		r        Report
		sentinel error
		want     []string
	}{
		{"different tapes", otherTape, ErrDifferentTapes, []string{"other.json", `"b.jsonl"`, "--allow-different-tapes"}},
		{"no histograms", noHists, ErrBadReport, []string{"other.json", "no histograms section"}},
		{"another configuration", badConfig, ErrBadReport, []string{"other.json", "histograms.config"}},
		{"corrupt histogram", badHDR, ErrHistogram, []string{"other.json", "histograms.schedule_lag", "base64"}},
		{"bad span", badSpan, ErrBadReport, []string{"other.json", "histograms.requests_sent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Read(goodPath)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Read(write("other.json", tc.r))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Merge([]*Report{a, b})
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("Merge: got %v, want %v", err, tc.sentinel)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q: want it to say %q", err, w)
				}
			}
		})
	}
	t.Run("different tapes allowed", func(t *testing.T) {
		m, err := Merge([]*Report{&good, &otherTape}, AllowDifferentTapes())
		if err != nil || m.Summary.Tape != "a.jsonl, b.jsonl" || m.Summary.Sent != 2*good.Summary.Sent {
			t.Errorf("Merge: got %v, tape %q; want both tapes, sent summed", err, m.Summary.Tape)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		if _, err := Merge(nil); !errors.Is(err, ErrBadReport) {
			t.Errorf("Merge(nil): got %v, want ErrBadReport", err)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		p := filepath.Join(dir, "torn.json")
		if err := os.WriteFile(p, []byte("{\n\"summary\": {\"sent\": \"x\"}}"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(p)
		if !errors.Is(err, ErrBadReport) || !strings.Contains(err.Error(), "line 2: summary.sent") || !strings.Contains(err.Error(), p) {
			t.Errorf("Read: got %v, want the file, line 2 and the field summary.sent", err)
		}
	})
}

// FuzzDecodeHistogram feeds the histogram decoder what a report file may
// hold: it returns a histogram or an error, never panics, and what it
// accepts encodes back to the same histogram.
func FuzzDecodeHistogram(f *testing.F) {
	h := newHist()
	for _, d := range []time.Duration{time.Millisecond, 20 * time.Millisecond, time.Second} {
		h.record(d)
	}
	e := h.encode()
	f.Add(e.HDR, e.Count, e.SumUS, e.MinUS, e.MaxUS, e.Clamped)
	empty := newHist()
	f.Add(empty.encode().HDR, int64(0), int64(0), int64(0), int64(0), int64(0))
	f.Add("HISTFAAAACx42pJpmSzMwMDAzgABzFCaEURcm7yEwf4DRIDlIzPTTW4mQAAAAP//eh8Gbg==", int64(4), int64(1250), int64(0), int64(1000), int64(0))
	f.Add("HIST", int64(1), int64(1), int64(1), int64(1), int64(0))
	f.Fuzz(func(t *testing.T, hdr string, count, sum, lo, hi, clamped int64) {
		in := EncodedHistogram{Count: count, SumUS: sum, MinUS: lo, MaxUS: hi, Clamped: clamped, HDR: hdr}
		got, err := in.decode()
		if err != nil {
			if !errors.Is(err, ErrHistogram) {
				t.Fatalf("decode: %v does not wrap ErrHistogram", err)
			}
			return
		}
		_ = got.stats()
		_ = got.buckets()
		again, err := got.encode().decode()
		if err != nil || !again.h.Equals(got.h) || again.stats() != got.stats() {
			t.Fatalf("re-encoded histogram: %v", err)
		}
	})
}

// FuzzMergeParsed merges whatever Parse accepts: an error or a report,
// never a panic.
func FuzzMergeParsed(f *testing.F) {
	var buf bytes.Buffer
	if err := sampleReport().WriteJSON(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"histograms": {"version": 1}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		if _, err := Merge([]*Report{r, r}); err == nil {
			return
		}
	})
}

// TestMergeKeepsAborts: a merge with a cut-short report does not pass and
// says which report stopped, and why.
func TestMergeKeepsAborts(t *testing.T) {
	c := NewCollector()
	c.Add(request(0, 0, 0, time.Millisecond, Passed))
	ok, cut := c.Report(Meta{Tape: "t"}), c.Report(Meta{Tape: "t"})
	cut.Summary.RunID += " cut" // another run: one run_id is the same run twice
	cut.Conclude(Stop{Kind: StopTarget, Why: "the target died"}, nil)
	m, err := Merge([]*Report{throughJSON(t, ok), throughJSON(t, cut)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Passed() || m.Summary.Passed || m.Summary.Aborted != "report 2: the target died" || m.Summary.Stopped != StopTarget {
		t.Errorf("merged: passed %v, aborted %q, stopped %q; want false, \"report 2: the target died\", %q",
			m.Passed(), m.Summary.Aborted, m.Summary.Stopped, StopTarget)
	}
}

// TestMergeGroupsLikeAborts: shards stopped for one reason (the
// coordinator's stop, Ctrl-C) are named together before it, once; the
// merged result line said the same long reason once per shard. Reasons
// that differ stay apart, in the order of the reports.
func TestMergeGroupsLikeAborts(t *testing.T) {
	const stop = "stopped by the coordinator: threshold p99<200ms failed on the merged data of the shards (212.479ms) with --abort-on-fail"
	var reps []*Report
	for i, why := range []string{stop, stop, "the target died", stop} {
		r := shardReport(t, &Shard{Index: i, Count: 4})
		r.Conclude(Stop{Kind: StopFailure, Why: why}, nil)
		reps = append(reps, throughJSON(t, *r))
	}
	m, err := Merge(reps)
	if err != nil {
		t.Fatal(err)
	}
	want := "shards 0/4, 1/4, 3/4: " + stop + "; shard 2/4: the target died"
	if m.Summary.Aborted != want {
		t.Errorf("aborted:\n got %q\nwant %q", m.Summary.Aborted, want)
	}
}
