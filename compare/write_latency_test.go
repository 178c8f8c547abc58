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
