package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in     string
		metric string
		op     string
		limit  float64
	}{
		{"p99<200ms", "p99", "<", 200},
		{"p50<=20ms", "p50", "<=", 20},
		{"avg<5ms", "avg", "<", 5},
		{"max<1s", "max", "<", 1000},
		{"p95<250ms", "p95", "<", 250},
		{"lag_p99<=0", "lag_p99", "<=", 0}, // 0 needs no unit
		{"p999<1.5s", "p999", "<", 1500},
		{"p(99)<200ms", "p99", "<", 200},
		{"p(99.9) < 2s", "p999", "<", 2000},
		{"  P99 <  200ms ", "p99", "<", 200},
		{"latency_p90<30ms", "latency_p90", "<", 30},
		{"intended_p99<300ms", "intended_p99", "<", 300},
		{"lag_p99<1ms", "lag_p99", "<", 1},
		{"lag_max<500us", "lag_max", "<", 0.5},
		{"error_rate<1%", "error_rate", "<", 0.01},
		{"error_rate<0.05", "error_rate", "<", 0.05},
		{"success_rate>=99.5%", "success_rate", ">=", 0.995},
		{"throughput>500", "throughput", ">", 500},
		{"throughput>=500/s", "throughput", ">=", 500},
		{"validation_failed==0", "validation_failed", "==", 0},
		{"timeouts==0", "timeouts", "==", 0},
		{"errors!=3", "errors", "!=", 3},
		{"duration<30s", "duration", "<", 30000},
		{"faults>0", "faults", ">", 0},
		{"held_p99<50ms", "held_p99", "<", 50},
		{"held_max<=1s", "held_max", "<=", 1000},
		{"lag_p99<10ms", "lag_p99", "<", 10},
		{"load_delivered==1", "load_delivered", "==", 1},
		{"load_delivered==true", "load_delivered", "==", 1},
		{"LOAD_DELIVERED == TRUE", "load_delivered", "==", 1},
		{"load_delivered!=false", "load_delivered", "!=", 0},
		{"load_delivered==0", "load_delivered", "==", 0},
		{"late==0", "late", "==", 0},
		{"late<=5", "late", "<=", 5},
		{"achieved_rate>400", "achieved_rate", ">", 400},
		{"achieved_rate>=450/s", "achieved_rate", ">=", 450},
		{"intended_rate>0", "intended_rate", ">", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseThreshold(tt.in)
			if err != nil {
				t.Fatalf("ParseThreshold(%q): got error %v, want none", tt.in, err)
			}
			if got.Metric != tt.metric || got.Op != tt.op || got.Limit != tt.limit {
				t.Errorf("got %s %s %v, want %s %s %v", got.Metric, got.Op, got.Limit, tt.metric, tt.op, tt.limit)
			}
			if got.Expr != strings.TrimSpace(tt.in) {
				t.Errorf("Expr: got %q, want %q", got.Expr, strings.TrimSpace(tt.in))
			}
		})
	}
}

func TestParseThresholdErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{"no operator", "<="}},
		{"p99 200ms", []string{"no operator"}},
		{"p99=200ms", []string{"no operator", "=="}},
		{"<200ms", []string{"no metric", "known metrics", "p99", "error_rate"}},
		{"p98<200ms", []string{`unknown metric "p98"`, "p50, p90, p95, p99", "lag_", "validation_failed", "throughput"}},
		{"latency<200ms", []string{`unknown metric "latency"`}},
		{"p99<", []string{"no value after <"}},
		{"p99<fast", []string{"p99 wants a duration such as 200ms", `"fast"`}},
		{"p99<NaN", []string{"wants a duration"}},
		{"error_rate<lots", []string{"wants a percentage such as 1%"}},
		{"error_rate<150%", []string{"between 0% and 100%"}},
		{"success_rate>-1", []string{"between 0% and 100%"}},
		{"throughput>fast", []string{"wants requests per second"}},
		{"validation_failed==none", []string{"wants a number"}},
		{"p99<200ms<300ms", []string{"more than one operator"}},
		{"timeouts=<0", []string{`operator "=<0" unknown`}},
		{"held_p98<1ms", []string{`unknown metric "held_p98"`, "held_", "held_p99", "load_delivered", "late", "achieved_rate", "intended_rate"}},
		{"delivered==1", []string{`unknown metric "delivered"`, "load_delivered"}},
		{"held<1ms", []string{`unknown metric "held"`}},
		{"load_delivered<1", []string{"load_delivered is true or false: compare it with == or !=, e.g. load_delivered==true"}},
		{"load_delivered>=true", []string{"compare it with == or !="}},
		{"load_delivered==yes", []string{"load_delivered wants true or false (or 1 or 0)", `"yes"`}},
		{"load_delivered==2", []string{"wants true or false"}},
		{"achieved_rate>fast", []string{"achieved_rate wants requests per second"}},
		{"late==some", []string{"late wants a number"}},
		{"held_p99<soon", []string{"held_p99 wants a duration"}},
		// A latency needs its unit: 200 could be milliseconds or seconds.
		{"p99<200", []string{"p99 is a duration and 200 has no unit: write p99<200ms for milliseconds"}},
		{"p(99) < 1.5", []string{"write p99<1.5ms"}},
		{"duration<60", []string{"duration is a duration and 60 has no unit"}},
		{"lag_max>=-1", []string{"write lag_max>=-1ms"}},
		// A rate's bare number of 1 or more is a percentage to a k6 user
		// ("1" for 1%), a fraction to the parser (1 = 100%): refused.
		{"error_rate<1", []string{"error_rate is a rate and 1 has no unit: write error_rate<1% for a percentage, or the fraction error_rate<0.01"}},
		{"success_rate>=99.5", []string{"write success_rate>=99.5% for a percentage, or the fraction success_rate>=0.995"}},
		{"error_rate{tool:search}<5", []string{"write error_rate{tool:search}<5%"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseThreshold(tt.in)
			if err == nil {
				t.Fatalf("ParseThreshold(%q): got no error, want one", tt.in)
			}
			if !errors.Is(err, ErrThreshold) {
				t.Errorf("got %v, want it to wrap ErrThreshold", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"p99<200ms", "error_rate<1%", "p(99.9)>=1ms", "p99<200", "throughput>5/s", "x==", "<<", "lag_p99!=0"} {
		f.Add(s)
	}
	for _, s := range []string{"load_delivered==true", "late==0", "achieved_rate>1/s", "held_p99<5ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			return
		}
		// A parsed threshold evaluates, and parses again the same way.
		if res := sampleReport().Evaluate([]Threshold{th}); len(res) != 1 || res[0].Value == "unknown metric" {
			t.Fatalf("Evaluate(%q): got %+v", s, res)
		}
		again, err := ParseThreshold(th.Expr)
		if err != nil || again != th {
			t.Fatalf("ParseThreshold(%q) again: got %+v, %v, want %+v", th.Expr, again, err, th)
		}
	})
}

func num(f float64) *float64 { return &f }

var none *float64

func equalPtr(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func ptrString(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

func TestEvaluate(t *testing.T) {
	r := sampleReport() // latency 3ms and 12.5ms, 1 failed, 1 timeout, error rate 1/3
	empty := NewCollector().Report(Meta{})
	loadReport := func(speed string, rs []Result) Report {
		c := NewCollector()
		for _, r := range rs {
			c.Add(r)
		}
		return c.Report(Meta{Speed: speedOf(speed)})
	}
	// Three requests 20ms late and held 40ms.
	behind := loadReport("realtime", every(3, time.Second, constant(40*time.Millisecond), constant(20*time.Millisecond)))
	fast := loadReport("fast", every(3, 0, constant(0), constant(0)))
	tests := []struct {
		name   string
		r      Report
		expr   string
		value  string
		passed bool
		actual *float64 // nil: null, no data
		unit   string
		limit  float64
	}{
		{"p99 under", r, "p99<200ms", "12.5ms", true, num(12.5), "ms", 200},
		{"p99 over", r, "p99<10ms", "12.5ms", false, num(12.5), "ms", 10},
		{"p50 is an HDR value", r, "p50<=3ms", "3.001ms", false, num(3.001), "ms", 3},
		{"max at limit, strict", r, "max<12.5ms", "12.5ms", false, num(12.5), "ms", 12.5},
		{"max at limit, inclusive", r, "max<=12.5ms", "12.5ms", true, num(12.5), "ms", 12.5},
		{"avg", r, "avg<5ms", "7.75ms", false, num(7.75), "ms", 5},
		{"max in seconds", r, "max<1s", "12.5ms", true, num(12.5), "ms", 1000},
		{"lag in microseconds", r, "lag_max<2ms", "1.0ms", true, num(1), "ms", 2},
		{"lag p50", r, "lag_p50<1ms", "0µs", true, num(0), "ms", 1},
		{"error rate", r, "error_rate<1%", "33.33%", false, num(33.333333), "%", 1},
		{"success rate", r, "success_rate>=50%", "50.00%", true, num(50), "%", 50},
		{"validation failed", r, "validation_failed==0", "1", false, num(1), "", 0},
		{"timeouts", r, "timeouts==1", "1", true, num(1), "", 1},
		{"throughput", r, "throughput>0.3", "0.4/s", true, num(0.396825), "/s", 0.3},
		{"duration in seconds", r, "duration<5s", "5.04s", false, num(5040), "ms", 5000},
		{"no latency is no data and fails", empty, "p99<200ms", "no data", false, none, "ms", 200},
		{"no latency, but count metrics measured", empty, "validation_failed==0", "0", true, num(0), "", 0},
		// sampleReport is a 10x replay: 3 requests, the two after the
		// handshake at 50/s as intended (their sends took less time than
		// the schedule meant, a late send caught up: that read 52.6/s
		// before), lag p99 1ms, held 0.
		{"held p99", r, "held_p99<1ms", "0µs", true, num(0), "ms", 1},
		{"load delivered", r, "load_delivered==true", "true", true, num(1), "", 1},
		{"load delivered as 1", r, "load_delivered==1", "true", true, num(1), "", 1},
		{"load delivered, not false", r, "load_delivered!=false", "true", true, num(1), "", 0},
		{"load delivered, wanted false", r, "load_delivered==false", "true", false, num(1), "", 0},
		{"late", r, "late==0", "0", true, num(0), "", 0},
		{"achieved rate", r, "achieved_rate>100", "50.0/s", false, num(50), "/s", 100},
		{"achieved rate met", r, "achieved_rate>=50/s", "50.0/s", true, num(50), "/s", 50},
		{"intended rate", r, "intended_rate>=50", "50.0/s", true, num(50), "/s", 50},
		{"not delivered", behind, "load_delivered==true", "false", false, num(0), "", 1},
		{"not delivered, late", behind, "late==0", "3", false, num(3), "", 0},
		{"not delivered, held", behind, "held_p99<10ms", "40.0ms", false, num(40), "ms", 10},
		{"fast: load is no data and fails", fast, "load_delivered==true", "no data", false, none, "", 1},
		{"fast: late is no data and fails", fast, "late==0", "no data", false, none, "", 0},
		{"fast: achieved rate is no data", fast, "achieved_rate>0", "no data", false, none, "/s", 0},
		{"fast: held is still measured", fast, "held_p99<1ms", "0µs", true, num(0), "ms", 1},
		{"nothing held measured", empty, "held_p99<1ms", "no data", false, none, "ms", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := ParseThreshold(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			got := tt.r.Evaluate([]Threshold{th})
			if len(got) != 1 {
				t.Fatalf("got %d results, want 1", len(got))
			}
			if got[0].Value != tt.value || got[0].Passed != tt.passed || got[0].Expr != tt.expr || got[0].Metric != th.Metric {
				t.Errorf("got %+v, want value %q passed %v", got[0], tt.value, tt.passed)
			}
			if !equalPtr(got[0].Actual, tt.actual) || got[0].Unit != tt.unit || got[0].LimitValue != tt.limit {
				t.Errorf("got actual %s unit %q limit_value %v, want %s %q %v", ptrString(got[0].Actual), got[0].Unit, got[0].LimitValue, ptrString(tt.actual), tt.unit, tt.limit)
			}
		})
	}
	t.Run("hand-made threshold with an unknown metric fails", func(t *testing.T) {
		got := r.Evaluate([]Threshold{{Expr: "bogus<1", Metric: "bogus", Op: "<", Limit: 1}})
		if len(got) != 1 || got[0].Passed || got[0].Value != "unknown metric" {
			t.Errorf("got %+v, want one failed result with value \"unknown metric\"", got)
		}
	})
}

func TestFormatMS(t *testing.T) {
	tests := []struct {
		ms   float64
		want string
	}{
		{0, "0µs"}, {-0.0001, "0µs"}, {0.0004, "0µs"}, {0.25, "250µs"}, {0.001, "1µs"}, {3.001, "3.001ms"}, {231, "231.0ms"},
		{182.4, "182.4ms"}, {999.999, "999.999ms"}, {1000, "1.00s"}, {5040, "5.04s"}, {-2, "-2.0ms"},
		// Seconds are kept to the µs too (at least two decimals): 1504ms
		// read "1.50s", beside a limit of 1500ms, as the same number.
		{1504, "1.504s"}, {1500, "1.50s"}, {1504.0005, "1.504001s"}, {61234.5, "61.2345s"}, {-1504, "-1.504s"},
	}
	for _, tt := range tests {
		if got := FormatMS(tt.ms); got != tt.want {
			t.Errorf("FormatMS(%v): got %q, want %q", tt.ms, got, tt.want)
		}
	}
}

// TestThresholdFailureOverASecond: a threshold failed just over a limit
// above a second says a value that crosses it. "p99 was 1.50s" for
// p99<1500ms at 1504ms hid why it failed.
func TestThresholdFailureOverASecond(t *testing.T) {
	c := NewCollector()
	c.Add(request(1, 0, 0, 1504*time.Millisecond, Passed))
	r := c.Report(Meta{Tape: "t.jsonl"})
	th, err := ParseThreshold("p99<1500ms")
	if err != nil {
		t.Fatal(err)
	}
	r.ApplyThresholds([]Threshold{th})
	if got := r.ThresholdsFailed(); len(got) != 1 || got[0].Value != "1.504s" || got[0].Limit != "1.50s" {
		t.Fatalf("ThresholdsFailed: got %+v, want p99<1500ms failed with value 1.504s, limit 1.50s", got)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	if want := "threshold p99<1500ms failed: p99 was 1.504s"; !strings.Contains(buf.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, buf.String())
	}
}

func TestApplyThresholds(t *testing.T) {
	c := NewCollector()
	c.Add(request(1, 0, 0, 231*time.Millisecond, Passed))
	r := c.Report(Meta{Tape: "t.jsonl"})
	if !r.Passed() {
		t.Fatal("before thresholds: got FAIL, want PASS")
	}
	var ts []Threshold
	for _, s := range []string{"p99<200ms", "validation_failed==0"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	r.ApplyThresholds(ts)
	if r.Passed() || r.Summary.Passed {
		t.Errorf("Passed() %v, Summary.Passed %v: got a pass, want a fail", r.Passed(), r.Summary.Passed)
	}
	if got := r.ThresholdsFailed(); len(got) != 1 || got[0].Expr != "p99<200ms" {
		t.Errorf("ThresholdsFailed: got %+v, want just p99<200ms", got)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"thresholds  1 passed, 1 failed", "threshold p99<200ms failed: p99 was 231.0ms", "FAIL"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text: got\n%s\nwant it to contain %q", buf.String(), want)
		}
	}
	buf.Reset()
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if want := `"expr": "p99<200ms"`; !strings.Contains(buf.String(), want) {
		t.Errorf("JSON: want it to contain %q", want)
	}

	r.ApplyThresholds(ts[1:]) // applying again replaces the results
	if !r.Passed() || !r.Summary.Passed || len(r.Thresholds) != 1 {
		t.Errorf("after passing thresholds only: got passed %v, %d results, want a pass with 1", r.Passed(), len(r.Thresholds))
	}
}

// TestLoadThresholdText checks how a failed load threshold reads, in the
// text summary and in JUnit.
func TestLoadThresholdText(t *testing.T) {
	c := NewCollector()
	for _, r := range every(5, 100*time.Millisecond, constant(0), constant(50*time.Millisecond)) {
		c.Add(r)
	}
	r := c.Report(Meta{Tape: "t.jsonl", Speed: speedOf("rps:10")})
	var ts []Threshold
	for _, s := range []string{"load_delivered==true", "late==0", "lag_p99<10ms", "held_p99<10ms"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	r.ApplyThresholds(ts)
	if got := len(r.ThresholdsFailed()); got != 3 || r.Passed() {
		t.Fatalf("failed thresholds: got %d (passed %v), want 3 and a fail", got, r.Passed())
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"threshold load_delivered==true failed: load_delivered was false",
		"threshold late==0 failed: late was 5",
		"threshold lag_p99<10ms failed: lag_p99 was 50.0ms",
		"thresholds  1 passed, 3 failed",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text: got\n%s\nwant it to contain %q", buf.String(), want)
		}
	}
	if got := r.Thresholds[0].Limit; got != "true" {
		t.Errorf("load_delivered limit: got %q, want true", got)
	}
}

// TestThresholdsJSON checks what a tool reading the JSON report finds in
// "thresholds": the strings for people, and the same values as numbers
// with their unit; a metric with no data has "actual": null.
func TestThresholdsJSON(t *testing.T) {
	r := failingReport(t)
	var ts []Threshold
	for _, s := range []string{"throughput>0.3/s", "load_delivered==true"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	r.Thresholds = append(r.Thresholds, r.Evaluate(ts)...)
	r.Thresholds = append(r.Thresholds, NewCollector().Report(Meta{}).Evaluate([]Threshold{{Expr: "p99<200ms", Metric: "p99", Op: "<", Limit: 200}})...)
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Thresholds json.RawMessage `json:"thresholds"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, doc.Thresholds, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden(t, "thresholds.json.golden", pretty.Bytes())

	var got []map[string]any
	if err := json.Unmarshal(doc.Thresholds, &got); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		expr   string
		actual any
		unit   string
		limit  float64
		value  string
	}{
		{"p99<10ms", 12.5, "ms", 10, "12.5ms"},
		{"validation_failed==0", 1.0, "", 0, "1"},
		{"error_rate<50%", 33.333333, "%", 50, "33.33%"},
		{"throughput>0.3/s", 0.396825, "/s", 0.3, "0.4/s"},
		{"load_delivered==true", 1.0, "", 1, "true"},
		{"p99<200ms", nil, "ms", 200, "no data"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d thresholds, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g["expr"] != w.expr || g["actual"] != w.actual || g["unit"] != w.unit || g["limit_value"] != w.limit || g["value"] != w.value {
			t.Errorf("thresholds[%d]: got %v, want expr %q actual %v unit %q limit_value %v value %q", i, g, w.expr, w.actual, w.unit, w.limit, w.value)
		}
		if _, ok := g["actual"]; !ok {
			t.Errorf("thresholds[%d]: no actual field, want a number or null", i)
		}
	}
}
