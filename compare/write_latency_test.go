package compare

import (
	"bytes"
	"strings"
	"testing"
)

// TestLatencyShownAsDurations: compare's text and HTML show latencies as
// durations ("1.51s", "850µs", "12.5ms"), never as "1.51e+03".
func TestLatencyShownAsDurations(t *testing.T) {
	r := &Report{Latency: []Latency{{Method: "tools/call", Name: "slow",
		Primary:   Quantiles{N: 10, P50: 0.85, P90: 12.5, P99: 1510},
		Candidate: Quantiles{N: 10, P50: 0.9, P90: 13, P99: 1620},
		Secondary: Quantiles{N: 10, P50: 0.85, P90: 12.5, P99: 1500},
	}}}
	var text, html bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "html": html.String()} {
		if strings.Contains(out, "e+0") {
			t.Errorf("%s has a number in e-notation:\n%s", name, out)
		}
		for _, want := range []string{"850µs → 900µs (850µs)", "12.5ms → 13.0ms (12.5ms)", "1.51s → 1.62s (1.50s)"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
}

// TestRunDurationsShownAsDurations: a run's time, in compare's text and
// HTML, reads in the units of every other time ("0µs", "12.5ms",
// "1.234s", "1m5s"): its own formatter showed "0ms", "12ms", "1.23s" and
// "65.00s".
func TestRunDurationsShownAsDurations(t *testing.T) {
	r := &Report{Runs: []RunInfo{
		{Role: RolePrimary, Target: "p", Answers: 1, DurationMS: 0},
		{Role: RoleCandidate, Target: "c", Answers: 1, DurationMS: 12.5},
		{Role: RoleSecondary, Target: "s", Answers: 1, DurationMS: 1234},
		{Role: RoleSecondary, Target: "t", Answers: 1, DurationMS: 65000},
	}}
	var text, html bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p: 1 answers in 0µs", "c: 1 answers in 12.5ms", "s: 1 answers in 1.234s", "t: 1 answers in 1m5s"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{">0µs<", ">12.5ms<", ">1.234s<", ">1m5s<"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("html lacks %q:\n%s", want, html.String())
		}
	}
}
