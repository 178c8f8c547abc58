package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// runMain, set in a test binary's environment, makes it tailbench
// itself (TestHpongSIGTERM runs it so).
const runMain = "TAILBENCH_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func TestDeviations(t *testing.T) {
	const gap = 200 * time.Microsecond
	us := time.Microsecond
	tests := []struct {
		name          string
		at            []time.Duration
		wantDev, gaps []time.Duration // sorted
	}{
		{"on time, late start", []time.Duration{1000 * us, 1200 * us, 1400 * us}, []time.Duration{0, 0, 0}, []time.Duration{0, 0}},
		// The median anchor: a late first call does not shift the others.
		{"first late", []time.Duration{50 * us, 200 * us, 400 * us, 600 * us}, []time.Duration{0, 0, 0, 50 * us}, []time.Duration{0, 0, 50 * us}},
		{"one late in the middle", []time.Duration{0, 500 * us, 400 * us, 600 * us}, []time.Duration{0, 0, 0, 300 * us}, []time.Duration{0, 300 * us, 300 * us}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dev, gaps := deviations(tt.at, gap)
			if !equal(dev, tt.wantDev) || !equal(gaps, tt.gaps) {
				t.Errorf("got %v %v, want %v %v", dev, gaps, tt.wantDev, tt.gaps)
			}
		})
	}
}

func equal(a, b []time.Duration) bool {
	return strings.Join(strs(a), ",") == strings.Join(strs(b), ",")
}

func strs(d []time.Duration) (s []string) {
	for _, x := range d {
		s = append(s, x.String())
	}
	return s
}

func TestStatsReadsOnlyCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "arrivals")
	log := "1000000 initialize 0\n1000000 notifications/initialized -\n2000000 tools/call 1\n2200000 tools/call 2\n2400000 tools/call 3\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := statsCmd([]string{"-gap", "200us", "-calls", "2", path}, &out); err != nil {
		t.Fatal(err)
	}
	if want := ": 2 calls; arrival vs schedule p50 0.000 p99 0.000 max 0.000 ms"; !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "; late > 200µs: 0 at the start (calls 0-5), 0 later\n") {
		t.Errorf("got %q, want it to contain %q", out.String(), want)
	}
	// -rx: the kernel's receive times (the rx= fields), 200 µs apart
	// where the handler's are not; a log without them is refused.
	out.Reset()
	if err := statsCmd([]string{"-gap", "200us", "-rx", path}, &out); err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "no rx= field") {
		t.Errorf("-rx on a log without rx=: got %v, want an error naming line 3 and the missing field", err)
	}
	rxLog := "2000000 tools/call 1 rx=1900000\n2500000 tools/call 2 rx=2100000\n2300000 tools/call 3 rx=2300000\n"
	if err := os.WriteFile(path, []byte(rxLog), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := statsCmd([]string{"-gap", "200us", "-rx", path}, &out); err != nil {
		t.Fatal(err)
	}
	if want := ": 3 calls; arrival vs schedule p50 0.000 p99 0.000 max 0.000 ms"; !strings.Contains(out.String(), want) {
		t.Errorf("-rx: got %q, want it to contain %q", out.String(), want)
	}
	if err := os.WriteFile(path, []byte("x tools/call 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := statsCmd([]string{path}, &out); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad line: got %v, want an error naming line 1", err)
	}
}

// TestLateCalls: the calls further than late from the schedule (its
// anchor the median offset) are counted at the start or after it.
func TestLateCalls(t *testing.T) {
	const gap = 200 * time.Microsecond
	onTime := func(n int) []time.Duration {
		at := make([]time.Duration, n)
		for i := range at {
			at[i] = time.Duration(i) * gap
		}
		return at
	}
	tests := []struct {
		name         string
		late         map[int]time.Duration // call → how late it arrived
		start, later int
	}{
		{"on time", nil, 0, 0},
		{"a cold start", map[int]time.Duration{0: 300 * time.Microsecond, 1: 250 * time.Microsecond, 2: 150 * time.Microsecond}, 2, 0},
		{"a burst later", map[int]time.Duration{6: 201 * time.Microsecond, 7: 400 * time.Microsecond, 9: 200 * time.Microsecond}, 0, 2},
		{"early counts too", map[int]time.Duration{5: -300 * time.Microsecond, 12: -250 * time.Microsecond}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := onTime(20)
			for i, d := range tt.late {
				at[i] += d
			}
			start, later := lateCalls(at, gap, 200*time.Microsecond, 6)
			if start != tt.start || later != tt.later {
				t.Errorf("got %d at the start, %d later; want %d, %d", start, later, tt.start, tt.later)
			}
		})
	}
}

// TestSplit: split joins the report's calls to the arrivals in order and
// lists the one whose way up (sent → read) took longer than -over.
func TestSplit(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	report := `{"summary":{"started_at":"2026-01-02T03:04:05Z"},"timeline":[
{"method":"initialize","due_ms":0,"sent_ms":0,"answered_ms":0.5},
{"method":"tools/call","due_ms":1,"sent_ms":1,"answered_ms":1.1},
{"method":"tools/call","due_ms":1.2,"sent_ms":1.2,"answered_ms":1.9},
{"method":"tools/call","due_ms":1.4,"sent_ms":1.95,"answered_ms":2.0},
{"method":"tools/call","due_ms":1.6,"sent_ms":2.01,"answered_ms":2.1},
{"method":"tools/call","due_ms":3,"sent_ms":3,"answered_ms":3.1}]}`
	at := func(ms float64) string {
		return strconv.FormatInt(start.Add(time.Duration(ms*float64(time.Millisecond))).UnixNano(), 10)
	}
	log := at(0.2) + " initialize 0\n" + at(1.05) + " tools/call 1\n" + at(1.7) + " tools/call 2\n" +
		at(1.96) + " tools/call 3\n" + at(2.02) + " tools/call 4\n" + at(3.01) + " tools/call 5\n"
	rp, lp := filepath.Join(dir, "r.json"), filepath.Join(dir, "a.log")
	if err := os.WriteFile(rp, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lp, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := splitCmd([]string{"-report", rp, lp}, &out); err != nil {
		t.Fatal(err)
	}
	// Calls 2 and 3 waited for the answer before them (1.9, 2.0 ms: after
	// their due times) and went 0.05 and 0.01 ms after it; call 4 was
	// due after its predecessor's answer: not held.
	want := "5 calls; way up p50 0.010 ms, way back p50 0.080 ms; call 0 up 0.050 back 0.050 ms; 1 over 300µs, first: 1 (held 0.000, up 0.500, back 0.200)\n" +
		"2 calls held by the answer before them; the replayer's turnaround (answer → call) p50 0.010 ms, max 0.050 ms (call 2), sum 0.060 ms\n"
	if out.String() != want {
		t.Errorf("got\n%swant\n%s", out.String(), want)
	}
	// With the schedule's gap: the arrivals' offsets from call i × gap,
	// anchored at their median. At 200 µs: 1.05, 1.5, 1.56, 1.42, 2.21
	// ms, anchor 1.5: calls 0 and 4 are late, both sent at their due
	// times. At 400 µs: 1.05, 1.3, 1.16, 0.82, 1.41, anchor 1.16: calls 3
	// (sent 0.41 ms after due, held) and 4 (on time).
	for _, tc := range []struct{ gap, want string }{
		{"200us", "2 calls more than 200µs from the schedule; 0 of them sent more than 50µs after due (held by an answer, or the client's lag), 2 sent on time\n"},
		{"400us", "2 calls more than 200µs from the schedule; 1 of them sent more than 50µs after due (held by an answer, or the client's lag), 1 sent on time\n"},
	} {
		out.Reset()
		if err := splitCmd([]string{"-report", rp, "-gap", tc.gap, lp}, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out.String(), tc.want) {
			t.Errorf("-gap %s: got\n%swant it to end in\n%s", tc.gap, out.String(), tc.want)
		}
	}
}
