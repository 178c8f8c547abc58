package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// request is a c2s request sent at due+lag and answered after latency.
func request(seq int64, due, lag, latency time.Duration, v Verdict) Result {
	return Result{
		Seq: seq, Session: "s1", Method: "tools/call", Dir: DirC2S, Kind: KindRequest,
		Due: at(due), Sent: at(due + lag), Answered: at(due + lag + latency), Lag: lag, Verdict: v,
	}
}

func near(got, want float64) bool {
	// HDR at 3 significant digits: within 0.1% (plus 1µs for tiny values).
	return math.Abs(got-want) <= math.Abs(want)*0.001+0.001
}

func TestAggregation(t *testing.T) {
	tests := []struct {
		name    string
		results []Result
		check   func(t *testing.T, r Report)
	}{
		{
			name: "latencies 1..100ms",
			results: func() []Result {
				var rs []Result
				for i := range 100 {
					rs = append(rs, request(int64(i), time.Duration(i)*time.Second, 0, time.Duration(i+1)*time.Millisecond, Passed))
				}
				return rs
			}(),
			check: func(t *testing.T, r Report) {
				l := r.Performance.LatencyMS
				for _, c := range []struct {
					name      string
					got, want float64
				}{
					{"min", l.Min, 1}, {"avg", l.Avg, 50.5}, {"p50", l.P50, 50}, {"p90", l.P90, 90},
					{"p95", l.P95, 95}, {"p99", l.P99, 99}, {"p999", l.P999, 100}, {"max", l.Max, 100},
				} {
					if !near(c.got, c.want) {
						t.Errorf("latency %s: got %v, want %v", c.name, c.got, c.want)
					}
				}
				if l.Count != 100 {
					t.Errorf("latency count: got %d, want 100", l.Count)
				}
				if r.Performance.ScheduleLagMS.Max != 0 {
					t.Errorf("lag max: got %v, want 0", r.Performance.ScheduleLagMS.Max)
				}
				// 100 answered requests over 99s + 100ms.
				if want := 100 / 99.1; !near(r.Performance.ThroughputPerS, want) {
					t.Errorf("throughput: got %v, want %v", r.Performance.ThroughputPerS, want)
				}
				if r.Summary.DurationMS != 99100 {
					t.Errorf("duration: got %v, want 99100", r.Summary.DurationMS)
				}
			},
		},
		{
			name: "lag and latency from intended",
			results: []Result{
				request(0, 0, 10*time.Millisecond, 5*time.Millisecond, Passed),
				request(1, time.Second, 30*time.Millisecond, 5*time.Millisecond, Passed),
				// Lag left zero: taken from Sent - Due.
				{Seq: 2, Dir: DirC2S, Kind: KindNotification, Due: at(2 * time.Second), Sent: at(2*time.Second + 20*time.Millisecond), Verdict: Sent},
			},
			check: func(t *testing.T, r Report) {
				p := r.Performance
				if p.ScheduleLagMS.Count != 3 || p.ScheduleLagMS.Max != 30 || !near(p.ScheduleLagMS.P50, 20) {
					t.Errorf("lag: got %+v, want count 3, p50 20, max 30", p.ScheduleLagMS)
				}
				if p.LatencyMS.Max != 5 || p.LatencyFromIntendedMS.Max != 35 || p.LatencyFromIntendedMS.Min != 15 {
					t.Errorf("latency %+v / from intended %+v: want max 5 / min 15 max 35", p.LatencyMS, p.LatencyFromIntendedMS)
				}
				if r.Summary.Sent != 3 || r.Summary.Received != 2 || p.Requests != 2 || p.Answered != 2 {
					t.Errorf("sent %d received %d requests %d answered %d: want 3 2 2 2", r.Summary.Sent, r.Summary.Received, p.Requests, p.Answered)
				}
			},
		},
		{
			name: "verdict counts and rates",
			results: []Result{
				request(0, 0, 0, time.Millisecond, Passed),
				request(1, 0, 0, time.Millisecond, Warned),
				request(2, 0, 0, time.Millisecond, Failed),
				{Seq: 3, Dir: DirC2S, Kind: KindRequest, Sent: at(0), Verdict: Timeout, Err: "no answer in 5s"},
				{Seq: 4, Dir: DirC2S, Kind: KindRequest, Sent: at(0), Verdict: Error, Err: "broken pipe", ErrKind: "transport"},
				{Seq: 5, Dir: DirC2S, Kind: KindRequest, Verdict: Skipped},
				{Seq: 6, Dir: DirS2C, Kind: KindNotification, Answered: at(time.Millisecond), Verdict: Passed},
				{Seq: 7, Dir: DirC2S, Kind: KindNotification, Sent: at(0), Verdict: Sent},
				{Seq: 8, Verdict: "bogus"},
			},
			check: func(t *testing.T, r Report) {
				v, p, s := r.Validation, r.Performance, r.Summary
				got := []int64{v.Checked, v.Passed, v.Failed, v.Warnings, p.Errors, p.Timeouts, s.Skipped, s.Sent, s.Received, p.Requests, p.Answered}
				want := []int64{4, 3, 1, 1, 2, 1, 1, 6, 4, 5, 3}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("checked passed failed warnings errors timeouts skipped sent received requests answered: got %v, want %v", got, want)
				}
				if want := 3.0 / 7; !near(s.SuccessRate, want) {
					t.Errorf("success rate: got %v, want %v", s.SuccessRate, want)
				}
				if want := 3.0 / 5; !near(p.ErrorRate, want) {
					t.Errorf("error rate: got %v, want %v", p.ErrorRate, want)
				}
				kinds := ""
				for _, e := range r.Errors {
					kinds += e.Kind + " "
				}
				if kinds != "timeout transport unknown_verdict " {
					t.Errorf("error kinds: got %q, want %q", kinds, "timeout transport unknown_verdict ")
				}
				if r.Passed() || s.Passed {
					t.Errorf("passed: got true, want false")
				}
			},
		},
		{
			name:    "nothing collected",
			results: nil,
			check: func(t *testing.T, r Report) {
				if r.Summary.SuccessRate != 1 || r.Performance.ErrorRate != 0 || r.Performance.ThroughputPerS != 0 {
					t.Errorf("success %v error %v throughput %v: want 1 0 0", r.Summary.SuccessRate, r.Performance.ErrorRate, r.Performance.ThroughputPerS)
				}
				// Every message skipped: nothing was checked, which is
				// no pass.
				if r.Passed() || r.Summary.NothingChecked == "" {
					t.Errorf("passed %v, nothing_checked %q: want a failed run saying nothing was checked", r.Passed(), r.Summary.NothingChecked)
				}
				if r.Summary.TotalMessages != 7 || r.Summary.Skipped != 7 {
					t.Errorf("total %d skipped %d: want 7 7", r.Summary.TotalMessages, r.Summary.Skipped)
				}
			},
		},
		{
			name: "clamped values",
			results: []Result{
				request(0, time.Second, -time.Millisecond, 2*time.Hour, Passed),
			},
			check: func(t *testing.T, r Report) {
				p := r.Performance
				if p.ScheduleLagMS.Clamped != 1 || p.ScheduleLagMS.Max != 0 {
					t.Errorf("lag: got %+v, want clamped 1, max 0", p.ScheduleLagMS)
				}
				if p.LatencyMS.Clamped != 1 || p.LatencyMS.Max != 3600000 || p.LatencyMS.P99 != 3600000 {
					t.Errorf("latency: got %+v, want clamped 1, max and p99 3600000", p.LatencyMS)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector()
			for _, r := range tt.results {
				c.Add(r)
			}
			meta := Meta{Tape: "t.jsonl", Sessions: 1}
			if tt.results == nil {
				meta.TotalMessages, meta.Skipped = 7, 7
			}
			r := c.Report(meta)
			tt.check(t, r)
			var buf bytes.Buffer
			if err := r.WriteJSON(&buf); err != nil || !json.Valid(buf.Bytes()) {
				t.Fatalf("WriteJSON: got err %v, valid %v; want nil, true", err, json.Valid(buf.Bytes()))
			}
		})
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name                            string
		opts                            []Option
		n                               int
		wantTimeline, wantFail, wantErr int
		wantFaults                      int
	}{
		{"defaults, under", nil, 50, 50, 25, 25, 50},
		{"small limits", []Option{WithTimelineLimit(7), WithFailureLimit(3), WithErrorLimit(2), WithFaultLimit(1)}, 50, 7, 3, 2, 1},
		{"zero and negative", []Option{WithTimelineLimit(0), WithFailureLimit(-1), WithErrorLimit(0), WithFaultLimit(-5)}, 50, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector(tt.opts...)
			for i := range tt.n {
				v := Failed
				if i%2 == 1 {
					v = Timeout
				}
				c.Add(Result{Seq: int64(i), Dir: DirC2S, Kind: KindRequest, Sent: at(0), Verdict: v, Differences: []Difference{{Path: "result"}}})
				c.AddFault(Fault{Seq: int64(i), Kind: "timeout"})
			}
			r := c.Report(Meta{})
			got := []int64{int64(len(r.Timeline)), r.TimelineOmitted, int64(len(r.Validation.Failures)), r.Validation.FailuresOmitted,
				r.Validation.Failed, int64(len(r.Errors)), r.ErrorsOmitted, r.Performance.Timeouts, int64(len(r.Chaos.Faults)), r.Chaos.FaultsOmitted, r.Chaos.Injected}
			n := int64(tt.n)
			want := []int64{int64(tt.wantTimeline), n - int64(tt.wantTimeline), int64(tt.wantFail), n/2 - int64(tt.wantFail),
				n / 2, int64(tt.wantErr), n/2 - int64(tt.wantErr), n / 2, int64(tt.wantFaults), n - int64(tt.wantFaults), n}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("timeline omitted failures omitted failed errors omitted timeouts faults omitted injected:\ngot  %v\nwant %v", got, want)
			}
		})
	}
}

// randomResults returns a deterministic mix of results over a few sessions.
func randomResults(n int) []Result {
	rng := rand.New(rand.NewPCG(1, 2))
	verdicts := []Verdict{Passed, Passed, Passed, Warned, Failed, Timeout, Error, Skipped, Sent}
	rs := make([]Result, n)
	for i := range rs {
		due := time.Duration(i) * 3 * time.Millisecond
		lag := time.Duration(rng.IntN(5000)) * time.Microsecond
		lat := time.Duration(rng.ExpFloat64() * float64(20*time.Millisecond))
		v := verdicts[rng.IntN(len(verdicts))]
		r := request(int64(i), due, lag, lat, v)
		r.Session = fmt.Sprintf("s%d", i%3)
		r.Held = time.Duration(i%11) * 300 * time.Microsecond // not from rng: the sequence stays as it was
		switch v {
		case Failed:
			r.Differences = []Difference{{Path: "result.x", Expected: json.RawMessage(`1`), Actual: json.RawMessage(`2`), Kind: "changed"}}
		case Timeout, Error:
			r.Answered, r.Err = time.Time{}, "boom"
		case Skipped:
			r.Sent, r.Answered, r.Lag, r.Held = time.Time{}, time.Time{}, 0, 0
		}
		rs[i] = r
	}
	return rs
}

func TestMergeEqualsAddingAll(t *testing.T) {
	rs := randomResults(3000)
	// One run id for all: the reports are compared whole.
	opts := []Option{WithTimelineLimit(1500), WithFailureLimit(100), WithErrorLimit(150), WithFaultLimit(10), WithRunID("run")}
	meta := Meta{Tape: "t.jsonl", Sessions: 3, Speed: speedOf("realtime")}

	one := NewCollector(opts...)
	one.Start(at(-time.Second))
	parts := []*Collector{NewCollector(opts...), NewCollector(opts...), NewCollector(opts...)}
	parts[1].Start(at(-time.Second))
	bounds := []int{0, 1000, 1200, 3000}
	for p := range parts {
		for _, r := range rs[bounds[p]:bounds[p+1]] {
			one.Add(r)
			parts[p].Add(r)
			if r.Seq%7 == 0 {
				one.AddFault(Fault{Seq: r.Seq, Session: r.Session, Kind: "delay"})
				parts[p].AddFault(Fault{Seq: r.Seq, Session: r.Session, Kind: "delay"})
			}
		}
	}
	one.Finish(at(time.Hour))
	parts[2].Finish(at(time.Hour))

	merged := parts[0]
	for _, p := range parts[1:] {
		if err := merged.Merge(p); err != nil {
			t.Fatalf("Merge: got %v, want nil", err)
		}
	}
	var got, want bytes.Buffer
	if err := merged.Report(meta).WriteJSON(&got); err != nil {
		t.Fatal(err)
	}
	if err := one.Report(meta).WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("merged report differs from one collector's:\ngot  %.2000s\nwant %.2000s", got.String(), want.String())
	}
	if r := merged.Report(meta); r.TimelineOmitted != 1500 || r.Validation.FailuresOmitted == 0 {
		t.Errorf("timeline omitted %d, failures omitted %d: want 1500, > 0", r.TimelineOmitted, r.Validation.FailuresOmitted)
	}
	if r := merged.Report(meta); !r.Load.Applicable || r.Load.Requests == 0 || r.Performance.HeldMS.Max != 3 {
		t.Errorf("load %+v, held %+v: want an applicable load section and held up to 3ms", r.Load, r.Performance.HeldMS)
	}
}

func TestMergeRefuses(t *testing.T) {
	c := NewCollector()
	c.Add(request(0, 0, 0, time.Millisecond, Passed))
	tests := []struct {
		name string
		o    *Collector
		want error
	}{
		{"nil", nil, ErrMergeNil},
		{"self", c, ErrMergeSelf},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.Merge(tt.o); !errors.Is(err, tt.want) {
				t.Errorf("Merge: got %v, want %v", err, tt.want)
			}
			if got := c.Report(Meta{}).Validation.Passed; got != 1 {
				t.Errorf("passed after refused merge: got %d, want 1", got)
			}
		})
	}
}

func TestPassed(t *testing.T) {
	tests := []struct {
		name string
		add  []Result
		want bool
	}{
		{"all passed", []Result{request(0, 0, 0, time.Millisecond, Passed), request(1, 0, 0, time.Millisecond, Warned)}, true},
		{"one failed", []Result{request(0, 0, 0, time.Millisecond, Passed), request(1, 0, 0, time.Millisecond, Failed)}, false},
		{"one timeout", []Result{request(0, 0, 0, time.Millisecond, Timeout)}, false},
		{"one error", []Result{{Verdict: Error, Err: "x"}}, false},
		// Nothing judged: no pass, whatever went out (Unchecked).
		{"skipped only", []Result{{Verdict: Skipped}}, false},
		// Requests went out and no answer was judged: nothing checked.
		{"requests sent, none judged", []Result{request(0, 0, 0, time.Millisecond, Sent), request(1, 0, 0, time.Millisecond, Skipped)}, false},
		{"notifications sent, no request", []Result{{Seq: 2, Session: "s1", Method: "notifications/initialized", Dir: DirC2S, Kind: KindNotification, Sent: at(0), Verdict: Sent}}, false},
		{"one of two requests judged", []Result{request(0, 0, 0, time.Millisecond, Sent), request(1, 0, 0, time.Millisecond, Passed)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Limits of zero: Passed must rely on exact counts, not kept lists.
			c := NewCollector(WithErrorLimit(0), WithFailureLimit(0))
			for _, r := range tt.add {
				c.Add(r)
			}
			if got := c.Report(Meta{}).Passed(); got != tt.want {
				t.Errorf("Passed: got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNothingCheckedSaysWhy: a replay that sent requests and judged no
// answer fails in every format, saying why.
func TestNothingCheckedSaysWhy(t *testing.T) {
	c := NewCollector()
	c.Add(request(0, 0, 0, time.Millisecond, Sent))
	c.Add(request(1, 0, 0, time.Millisecond, Sent))
	r := c.Report(Meta{Tape: "t.vcr"})
	const why = "2 requests sent and no answer checked against the recording"
	if r.Passed() || r.Summary.Passed || !strings.HasPrefix(r.Summary.NothingChecked, why) || r.ExitStatus() != ExitFailed {
		t.Fatalf("passed %v/%v, nothing_checked %q, exit %d: want a failed run saying %q", r.Passed(), r.Summary.Passed, r.Summary.NothingChecked, r.ExitStatus(), why)
	}
	for _, f := range []struct {
		name  string
		write func(Report, io.Writer) error
		want  string
	}{
		{"json", Report.WriteJSON, `"nothing_checked": "` + why},
		{"text", func(r Report, w io.Writer) error { return r.WriteText(w, false) }, "FAIL (nothing checked: " + why},
		{"junit", Report.WriteJUnit, `type="nothing_checked"`},
		{"html", Report.WriteHTML, "nothing checked"},
	} {
		var b bytes.Buffer
		if err := f.write(r, &b); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if !strings.Contains(b.String(), f.want) {
			t.Errorf("%s lacks %q:\n%s", f.name, f.want, b.String())
		}
	}
}

func TestTimelineTimes(t *testing.T) {
	c := NewCollector()
	c.Start(at(-time.Second))
	c.Add(request(4, 0, 1500*time.Microsecond, 2*time.Millisecond, Passed))
	c.Add(Result{Seq: 5, Dir: DirC2S, Kind: KindNotification, Due: at(time.Second), Sent: at(time.Second), Verdict: Sent})
	tl := c.Report(Meta{}).Timeline
	if len(tl) != 2 {
		t.Fatalf("timeline length: got %d, want 2", len(tl))
	}
	ms := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	got := fmt.Sprint(ms(tl[0].DueMS), ms(tl[0].SentMS), ms(tl[0].LatencyMS), ms(tl[1].SentMS), ms(tl[1].LatencyMS), ms(tl[1].AnsweredMS))
	want := fmt.Sprint("1000", "1001.5", "2", "2000", "nil", "nil")
	if got != want {
		t.Errorf("due sent latency / sent latency answered: got %s, want %s", got, want)
	}
}

func TestInvalidDifferenceBytesStillEncode(t *testing.T) {
	c := NewCollector()
	c.Add(Result{Seq: 1, Verdict: Failed, Differences: []Difference{
		{Path: "a", Expected: json.RawMessage("{not json"), Actual: json.RawMessage{}, Kind: "changed"},
	}})
	var buf bytes.Buffer
	if err := c.Report(Meta{}).WriteJSON(&buf); err != nil {
		t.Fatalf("WriteJSON: got %v, want nil", err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("read back: %v", err)
	}
	d := back.Validation.Failures[0].Differences[0]
	if string(d.Expected) != `"{not json"` || string(d.Actual) != "null" {
		t.Errorf("expected, actual: got %s, %s; want %q, null", d.Expected, d.Actual, `"{not json"`)
	}
}

func FuzzReportEncodes(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte("\x1b[31m"), "res\nult", "tools/call")
	f.Fuzz(func(t *testing.T, expected, actual []byte, path, method string) {
		c := NewCollector()
		c.Add(Result{Seq: 1, Method: method, Verdict: Failed, Differences: []Difference{{Path: path, Expected: expected, Actual: actual}}})
		c.Add(Result{Seq: 2, Method: method, Verdict: Error, Err: path})
		r := c.Report(Meta{Tape: method})
		var buf bytes.Buffer
		if err := r.WriteJSON(&buf); err != nil || !json.Valid(buf.Bytes()) {
			t.Fatalf("WriteJSON: err %v, valid %v", err, json.Valid(buf.Bytes()))
		}
		buf.Reset()
		if err := r.WriteText(&buf, false); err != nil {
			t.Fatalf("WriteText: %v", err)
		}
		if bytes.ContainsRune(buf.Bytes(), 0x1b) {
			t.Fatalf("text output carries an escape character: %q", buf.String())
		}
	})
}

// TestAddDoesNotAllocateBeyondLimits is what keeps memory flat on long
// tapes: once the detail lists are full, Add allocates nothing.
func TestAddDoesNotAllocateBeyondLimits(t *testing.T) {
	tests := []struct {
		name string
		r    Result
	}{
		{"passed", request(1, 0, time.Millisecond, 3*time.Millisecond, Passed)},
		{"failed", request(2, 0, 0, time.Millisecond, Failed)},
		{"timeout", Result{Seq: 3, Kind: KindRequest, Sent: at(0), Verdict: Timeout, Err: "late"}},
		{"skipped", Result{Seq: 4, Verdict: Skipped}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCollector(WithTimelineLimit(1), WithFailureLimit(1), WithErrorLimit(1))
			c.Add(tt.r)
			if got := testing.AllocsPerRun(1000, func() { c.Add(tt.r) }); got != 0 {
				t.Errorf("allocations per Add: got %v, want 0", got)
			}
		})
	}
}

func TestRunID(t *testing.T) {
	a, b := NewCollector(), NewCollector()
	ra := a.Report(Meta{})
	id := ra.Summary.RunID
	if u, err := uuid.Parse(id); err != nil || u.String() != id || u.Version() != 4 {
		t.Fatalf("run_id %q: want a version 4 UUID in canonical form (%v)", id, err)
	}
	if again := a.Report(Meta{}).Summary.RunID; again != id {
		t.Errorf("second Report of one collector: got run_id %s, want %s", again, id)
	}
	if other := b.Report(Meta{}).Summary.RunID; other == id {
		t.Errorf("two collectors: got run_id %s twice, want two", id)
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if got := a.Report(Meta{}).Summary.RunID; got != id {
		t.Errorf("after Merge: got run_id %s, want the receiver's %s", got, id)
	}
	if got := NewCollector(WithRunID("r1")).Report(Meta{}).Summary.RunID; got != "r1" {
		t.Errorf("WithRunID: got run_id %q, want %q", got, "r1")
	}
}
