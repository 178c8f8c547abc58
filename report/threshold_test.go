package report

import (
	"bytes"
	"errors"
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
		{"p95<250", "p95", "<", 250}, // bare: milliseconds
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
	for _, s := range []string{"p99<200ms", "error_rate<1%", "p(99.9)>=1", "throughput>5/s", "x==", "<<", "lag_p99!=0"} {
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

func TestEvaluate(t *testing.T) {
	r := sampleReport() // latency 3ms and 12.5ms, 1 failed, 1 timeout, error rate 1/3
	empty := NewCollector().Report(Meta{})
	tests := []struct {
		name   string
		r      Report
		expr   string
		value  string
		passed bool
	}{
		{"p99 under", r, "p99<200ms", "12.5ms", true},
		{"p99 over", r, "p99<10ms", "12.5ms", false},
		{"p50 is an HDR value", r, "p50<=3ms", "3.001ms", false},
		{"max at limit, strict", r, "max<12.5ms", "12.5ms", false},
		{"max at limit, inclusive", r, "max<=12.5ms", "12.5ms", true},
		{"avg", r, "avg<5ms", "7.75ms", false},
		{"max in seconds", r, "max<1s", "12.5ms", true},
		{"lag in microseconds", r, "lag_max<2ms", "1.0ms", true},
		{"lag p50", r, "lag_p50<1ms", "0.0ms", true},
		{"error rate", r, "error_rate<1%", "33.33%", false},
		{"success rate", r, "success_rate>=50%", "50.00%", true},
		{"validation failed", r, "validation_failed==0", "1", false},
		{"timeouts", r, "timeouts==1", "1", true},
		{"throughput", r, "throughput>0.3", "0.4/s", true},
		{"duration in seconds", r, "duration<5s", "5.04s", false},
		{"no latency is no data and fails", empty, "p99<200ms", "no data", false},
		{"no latency, but count metrics measured", empty, "validation_failed==0", "0", true},
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
		{0, "0.0ms"}, {0.25, "250µs"}, {0.001, "1µs"}, {3.001, "3.001ms"}, {231, "231.0ms"},
		{182.4, "182.4ms"}, {999.999, "999.999ms"}, {1000, "1.00s"}, {5040, "5.04s"}, {-2, "-2.0ms"},
	}
	for _, tt := range tests {
		if got := formatMS(tt.ms); got != tt.want {
			t.Errorf("formatMS(%v): got %q, want %q", tt.ms, got, tt.want)
		}
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
