package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLoadLineCountsWhatItRates: the load line of a real rps: run counts
// the messages its rate is over. quickstart's session sends initialize,
// notifications/initialized and 7 requests; at rps:200 with 20 sessions
// each of those 180 messages takes a ticket 5 ms after the last, so the
// line says 180 messages at 200/s intended (160 requests, 20
// notifications), not "160 requests" at the 157/s of the 140 calls' span.
func TestLoadLineCountsWhatItRates(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "rps:200", "--sessions", "20", "-o", "json")
	var rep struct {
		Load struct {
			Requests      int64   `json:"requests"`
			Notifications int64   `json:"notifications"`
			Handshakes    int64   `json:"handshakes"`
			Intended      float64 `json:"intended_rate_per_s"`
			Verdict       string  `json:"verdict"`
		} `json:"load"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("exit %d, report is not JSON: %v\n%s\n%s", res.code, err, res.stdout, res.stderr)
	}
	l := rep.Load
	// The tickets are due 1/200 s apart exactly: the intended rate is a
	// count over a span of due times, not a measurement.
	if l.Requests != 160 || l.Notifications != 20 || l.Handshakes != 0 || l.Intended < 199.99 || l.Intended > 200.01 {
		t.Errorf("load: %+v; want 160 requests, 20 notifications, 0 handshakes apart, 200/s intended", l)
	}
	if !strings.Contains(l.Verdict, "180 messages at ") || !strings.Contains(l.Verdict, "(160 requests, 20 notifications; each takes a ticket)") || !strings.Contains(l.Verdict, "of the 200/s intended") {
		t.Errorf("verdict %q: want 180 messages (160 requests, 20 notifications) of the 200/s intended", l.Verdict)
	}
}
