package report

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// call is a c2s request of method (and name) in session, sent at sent and
// answered after latency (no answer: a timeout).
func call(seq int64, session, method, name string, sent, latency time.Duration, v Verdict) Result {
	r := Result{Seq: seq, Session: session, Method: method, Name: name, Dir: DirC2S, Kind: KindRequest,
		Due: at(sent), Sent: at(sent), Verdict: v}
	if v != Timeout && v != Error {
		r.Answered = at(sent + latency)
	}
	return r
}

// methodResults is a replay of n sessions, each a slow initialize (the
// target starting), its notification, a tools/list, then tools/call of
// two tools and a prompts/get: search fails once in five and times out
// once in seven.
func methodResults(n int) []Result {
	var rs []Result
	for s := range n {
		sess := fmt.Sprintf("s1#%d", s+1)
		base := time.Duration(s) * time.Millisecond
		rs = append(rs, call(0, sess, "initialize", "", base, 2*time.Second+time.Duration(s)*time.Millisecond, Passed))
		rs = append(rs, Result{Seq: 1, Session: sess, Method: "notifications/initialized", Dir: DirC2S, Kind: KindNotification,
			Due: at(base + 2*time.Second), Sent: at(base + 2*time.Second), Verdict: Sent})
		rs = append(rs, call(2, sess, "tools/list", "", base+2*time.Second, 3*time.Millisecond, Passed))
		for i := range 10 {
			seq := int64(3 + 3*i)
			t := base + 2*time.Second + time.Duration(i+1)*10*time.Millisecond
			v := Passed
			switch {
			case (s*10+i)%7 == 0:
				v = Timeout
			case (s*10+i)%5 == 0:
				v = Failed
			}
			rs = append(rs, call(seq, sess, "tools/call", "search", t, time.Duration(20+i)*time.Millisecond, v))
			rs = append(rs, call(seq+1, sess, "tools/call", "echo", t, time.Duration(1+i)*time.Millisecond, Passed))
			rs = append(rs, call(seq+2, sess, "prompts/get", "greet", t, 2*time.Millisecond, Passed))
		}
	}
	return rs
}

func summaryOf(t *testing.T, lines []MethodSummary, method, name string) MethodSummary {
	t.Helper()
	for _, s := range lines {
		if s.Method == method && s.Name == name {
			return s
		}
	}
	t.Fatalf("no line of %s %q in %+v", method, name, lines)
	return MethodSummary{}
}

func TestPerMethodBreakdown(t *testing.T) {
	rs := methodResults(20)
	c := NewCollector()
	for _, r := range rs {
		c.Add(r)
	}
	r := c.Report(Meta{Tape: "t.jsonl", Sessions: 20})

	if got := r.Performance.LatencyMS.Max; got >= 2000 {
		t.Errorf("headline latency max %vms: want the 2s handshake left out", got)
	}
	if got, want := r.Performance.Requests, int64(20*32); got != want {
		t.Errorf("performance.requests %d, want %d (the handshake is still a request sent)", got, want)
	}
	h := r.Handshake
	if h.Included || h.Requests != 20 || h.Answered != 20 || h.LatencyMS.Count != 20 || h.LatencyMS.Min < 2000 {
		t.Errorf("handshake %+v: want 20 initialize requests of 2s or more, not included", h)
	}

	ini := summaryOf(t, r.PerMethod, "initialize", "")
	if !ini.Handshake || ini.Requests != 20 || ini.LatencyMS.Count != 20 {
		t.Errorf("initialize line %+v: want a handshake of 20 requests", ini)
	}
	if n := summaryOf(t, r.PerMethod, "notifications/initialized", ""); !n.Handshake || n.Sent != 20 || n.Requests != 0 {
		t.Errorf("notifications/initialized line %+v: want a handshake, 20 sent, no request", n)
	}
	tc := summaryOf(t, r.PerMethod, "tools/call", "")
	search, echo := summaryOf(t, r.PerName, "tools/call", "search"), summaryOf(t, r.PerName, "tools/call", "echo")
	if tc.Requests != 400 || search.Requests != 200 || echo.Requests != 200 {
		t.Errorf("requests: tools/call %d, search %d, echo %d; want 400, 200, 200", tc.Requests, search.Requests, echo.Requests)
	}
	if search.Timeouts == 0 || search.Failed == 0 || echo.Timeouts != 0 || echo.Failed != 0 {
		t.Errorf("search %+v, echo %+v: want the failures and timeouts on search only", search, echo)
	}
	if tc.Timeouts != search.Timeouts || tc.Failed != search.Failed || tc.ErrorRate != float64(search.Timeouts)/400 {
		t.Errorf("tools/call %+v: want search's timeouts and failures, over 400 requests", tc)
	}
	if echo.LatencyMS.Max != 10 || search.LatencyMS.Min != 20 || tc.LatencyMS.Max != 29 {
		t.Errorf("latency: echo max %v, search min %v, tools/call max %v; want 10, 20, 29", echo.LatencyMS.Max, search.LatencyMS.Min, tc.LatencyMS.Max)
	}
	if p := summaryOf(t, r.PerName, "prompts/get", "greet"); p.Requests != 200 || p.Passed != 200 {
		t.Errorf("prompt greet %+v: want 200 requests passed", p)
	}
	var sum int64
	for _, s := range r.PerMethod {
		sum += s.Requests
	}
	if sum != r.Performance.Requests {
		t.Errorf("per_method requests add up to %d, want performance.requests %d", sum, r.Performance.Requests)
	}

	// Put back, the handshake is the headline's tail.
	ci := NewCollector(IncludeHandshake())
	for _, x := range rs {
		ci.Add(x)
	}
	ri := ci.Report(Meta{Tape: "t.jsonl", Sessions: 20})
	if !ri.Handshake.Included || ri.Performance.LatencyMS.Max < 2000 || ri.Performance.LatencyMS.Count != r.Performance.LatencyMS.Count+20 {
		t.Errorf("with IncludeHandshake: handshake %+v, latency %+v; want the 20 handshakes in the latency", ri.Handshake, ri.Performance.LatencyMS)
	}
}

func TestPerMethodText(t *testing.T) {
	c := NewCollector()
	for _, r := range methodResults(2) {
		c.Add(r)
	}
	var buf bytes.Buffer
	if err := c.Report(Meta{Tape: "t.jsonl", Sessions: 2, Speed: speedOf("fast")}).WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, w := range []string{
		"  handshake   2 requests: p50 2.001s  p99 2.001s  max 2.001s; left out of latency (--include-handshake counts it)\n",
		"throughput ", "By method:", "  initialize (handshake)  ", "By tool, prompt and resource:", "  tool search  ", "  prompt greet  ",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("got:\n%s\nwant it to contain %q", got, w)
		}
	}
}

func TestThresholdFilterParse(t *testing.T) {
	for _, tt := range []struct {
		expr   string
		metric string
		filter Filter
	}{
		{"p99{method:tools/call}<200ms", "p99", Filter{"method", "tools/call"}},
		{"error_rate{tool:search}<1%", "error_rate", Filter{"tool", "search"}},
		{" p(99) { Method : tools/call } < 1s ", "p99", Filter{"method", "tools/call"}},
		{"latency_max{resource:test://static/resource/1?a=b}<=5ms", "latency_max", Filter{"resource", "test://static/resource/1?a=b"}},
		{"validation_failed{prompt:greet}==0", "validation_failed", Filter{"prompt", "greet"}},
		{"p99<200ms", "p99", Filter{}},
	} {
		th, err := ParseThreshold(tt.expr)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", tt.expr, err)
			continue
		}
		if th.Metric != tt.metric || th.Filter != tt.filter {
			t.Errorf("ParseThreshold(%q): metric %q filter %+v, want %q %+v", tt.expr, th.Metric, th.Filter, tt.metric, tt.filter)
		}
	}
	for _, tt := range []struct{ expr, want string }{
		{"p99{name:x}<200ms", `unknown key "name"; keys: method, tool (tools/call), prompt (prompts/get), resource (resources/read)`},
		{"p99{method:tools/call<200ms", "has no closing }"},
		{"p99{method}<200ms", "want {KEY:VALUE}"},
		{"p99{tool:}<200ms", "want {KEY:VALUE}"},
		{"lag_p99{method:tools/call}<1ms", "lag_p99 is not broken down by method or name"},
		{"load_delivered{method:tools/call}==true", "not broken down"},
		{"p99{method:tools/call,tool:search}<1ms", "one KEY:VALUE per threshold"},
		{"p99{method:tools/call}<200", "has no unit"},
	} {
		_, err := ParseThreshold(tt.expr)
		if !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseThreshold(%q): got %v, want ErrThreshold saying %q", tt.expr, err, tt.want)
		}
	}
}

func TestThresholdFilterEvaluate(t *testing.T) {
	c := NewCollector()
	for _, r := range methodResults(20) {
		c.Add(r)
	}
	r := c.Report(Meta{Tape: "t.jsonl", Sessions: 20})
	for _, tt := range []struct {
		expr, value, detail string
		passed              bool
	}{
		{"p99<200ms", "29.0ms", "", true}, // the handshake left out
		{"p99{method:tools/call}<200ms", "29.0ms", "", true},
		{"p99{method:initialize}<200ms", "2.019s", "", false},
		{"max{tool:echo}<=10ms", "10.0ms", "", true},
		{"min{tool:search}>=20ms", "20.0ms", "", true},
		{"timeouts{tool:echo}==0", "0", "", true},
		{"timeouts{tool:search}==0", "29", "", false},
		{"error_rate{tool:echo}<1%", "0.00%", "", true},
		{"requests{prompt:greet}==200", "200", "", true},
		{"sent{method:notifications/initialized}==20", "20", "", true},
		{"p99{method:tools/cal}<200ms", "no data", "the run has no tools/cal; it has initialize, notifications/initialized, prompts/get, tools/call, tools/list", false},
		{"p99{tool:serch}<200ms", "no data", `the run has no tools/call "serch"; it has echo, search`, false},
		{"p99{method:notifications/initialized}<1s", "no data", "no notifications/initialized request answered", false},
		{"errors{resource:file:///x}==0", "no data", `the run has no resources/read "file:///x"`, false},
	} {
		th, err := ParseThreshold(tt.expr)
		if err != nil {
			t.Fatalf("ParseThreshold(%q): %v", tt.expr, err)
		}
		got := r.Evaluate([]Threshold{th})[0]
		if got.Value != tt.value || got.Detail != tt.detail || got.Passed != tt.passed {
			t.Errorf("%s: got value %q detail %q passed %t; want %q %q %t", tt.expr, got.Value, got.Detail, got.Passed, tt.value, tt.detail, tt.passed)
		}
		if th.Filter.Key != "" && got.Filter != th.Filter.String() {
			t.Errorf("%s: filter %q, want %q", tt.expr, got.Filter, th.Filter.String())
		}
	}
}

func TestMethodLimit(t *testing.T) {
	c := NewCollector(WithMethodLimit(2))
	for _, r := range methodResults(3) {
		c.Add(r)
	}
	r := c.Report(Meta{Tape: "t.jsonl"})
	var names []string
	for _, s := range r.PerMethod {
		names = append(names, s.Method)
	}
	// The handshake's two, then the first two others seen.
	if got, want := strings.Join(names, " "), "initialize notifications/initialized tools/call tools/list"; got != want {
		t.Errorf("per_method %s, want %s", got, want)
	}
	if r.PerMethodOmitted != 30 || len(r.PerName) != 2 || r.PerNameOmitted != 30 {
		t.Errorf("omitted: methods %d, names %d (%d listed); want 30 prompts/get results, 30 greet results, 2 names", r.PerMethodOmitted, r.PerNameOmitted, len(r.PerName))
	}
	th, err := ParseThreshold("p99{method:prompts/get}<1s")
	if err != nil {
		t.Fatal(err)
	}
	got := r.Evaluate([]Threshold{th})[0]
	if got.Passed || !strings.Contains(got.Detail, "raise --method-limit") {
		t.Errorf("threshold on a method past the limit: %+v; want it failed, saying to raise --method-limit", got)
	}
}

// TestMergePerMethodExact: the breakdown by method and name of reports
// merged is that of one collector fed every result, byte for byte, the
// limit included.
func TestMergePerMethodExact(t *testing.T) {
	rs := methodResults(12)
	for _, limit := range []int{DefaultMethodLimit, 2} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			one := NewCollector(WithRunID("run"), WithMethodLimit(limit))
			// Runs of their own (one run_id would be the same run
			// twice): the merge's run_id is a fresh one.
			parts := []*Collector{NewCollector(WithRunID("part 1"), WithMethodLimit(limit)), NewCollector(WithRunID("part 2"), WithMethodLimit(limit))}
			for i, r := range rs {
				one.Add(r)
				parts[min(i/(len(rs)/2), 1)].Add(r)
			}
			meta := Meta{Tape: "t.jsonl", Sessions: 6, TotalMessages: int64(len(rs))} // each part, a run of the tape, counts all of it
			reports := []*Report{throughJSON(t, parts[0].Report(meta)), throughJSON(t, parts[1].Report(meta))}
			merged, err := Merge(reports)
			if err != nil {
				t.Fatal(err)
			}
			freshRunID(t, merged, reports)
			merged.Summary.RunID = "run"
			want := one.Report(Meta{Tape: "t.jsonl", Sessions: 12})
			if limit == DefaultMethodLimit {
				var got, w bytes.Buffer
				if err := merged.WriteJSON(&got); err != nil {
					t.Fatal(err)
				}
				if err := want.WriteJSON(&w); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), w.Bytes()) {
					t.Errorf("merged report differs from one collector's:\n%s", firstDifference(got.String(), w.String()))
				}
				return
			}
			// With a limit, the merged report breaks down what each part
			// did (the same first methods here) and counts the rest.
			if fmt.Sprint(merged.PerMethod) != fmt.Sprint(want.PerMethod) || merged.PerMethodOmitted != want.PerMethodOmitted {
				t.Errorf("per_method:\ngot  %+v omitted %d\nwant %+v omitted %d", merged.PerMethod, merged.PerMethodOmitted, want.PerMethod, want.PerMethodOmitted)
			}
		})
	}
}

func TestMergeRefusesMixedHandshake(t *testing.T) {
	a, b := NewCollector(), NewCollector(IncludeHandshake())
	for _, r := range methodResults(1) {
		a.Add(r)
		b.Add(r)
	}
	if err := a.Merge(b); !errors.Is(err, ErrMergeHandshake) {
		t.Errorf("Collector.Merge: got %v, want ErrMergeHandshake", err)
	}
	_, err := Merge([]*Report{throughJSON(t, a.Report(Meta{Tape: "t"})), throughJSON(t, b.Report(Meta{Tape: "t"}))})
	if !errors.Is(err, ErrBadReport) || !strings.Contains(err.Error(), "--include-handshake") {
		t.Errorf("Merge: got %v, want ErrBadReport naming --include-handshake", err)
	}
}

func TestMergeRefusesBadBreakdown(t *testing.T) {
	c := NewCollector()
	for _, r := range methodResults(1) {
		c.Add(r)
	}
	for _, tt := range []struct {
		name   string
		change func(r *Report)
		want   string
	}{
		{"a line twice", func(r *Report) { r.PerMethod = append(r.PerMethod, r.PerMethod[0]) }, "per_method lists method \"initialize\" twice"},
		{"a histogram of no line", func(r *Report) { r.PerName = r.PerName[1:] }, "which per_name does not list"},
		{"a line with no histogram", func(r *Report) { r.Histograms.PerMethod = r.Histograms.PerMethod[1:] }, "has no histogram of it"},
		{"counts that disagree", func(r *Report) { r.PerMethod[0].Answered++ }, "holds 1 latencies"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := throughJSON(t, c.Report(Meta{Tape: "t"}))
			tt.change(r)
			if _, err := Merge([]*Report{r}); !errors.Is(err, ErrBadReport) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want ErrBadReport saying %q", err, tt.want)
			}
		})
	}
}

func TestAchievedRatioThreshold(t *testing.T) {
	c := NewCollector()
	for _, r := range every(50, 10*time.Millisecond, func(i int) time.Duration { return time.Duration(i) * 5 * time.Millisecond }, constant(0)) {
		c.Add(r)
	}
	r := c.Report(Meta{Speed: speedOf("realtime"), Sessions: 1})
	for _, tt := range []struct {
		expr   string
		passed bool
	}{
		{"achieved_ratio>=0.95", false},
		{"achieved_ratio>=60%", true},
		{"load_delivered==true", false},
	} {
		th, err := ParseThreshold(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Evaluate([]Threshold{th})[0]; got.Passed != tt.passed {
			t.Errorf("%s at ratio %v: got %+v, want passed %t", tt.expr, r.Load.AchievedRatio, got, tt.passed)
		}
	}
	fast := NewCollector()
	fast.Add(timed(0, KindRequest, 0, 0, 0))
	th, _ := ParseThreshold("achieved_ratio>=0.95")
	if got := fast.Report(Meta{Speed: speedOf("fast")}).Evaluate([]Threshold{th})[0]; got.Passed || got.Value != "no data" {
		t.Errorf("achieved_ratio of a fast replay: %+v; want no data, failed", got)
	}
}
