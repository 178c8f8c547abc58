package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestFormatDuration: a time shown to a person reads in µs under a
// millisecond, in ms under a second and in s above, zero included
// ("0µs", as FormatMS shows it, not Duration.String's "0s"), whether it
// comes as a time.Duration or as milliseconds (FormatDurationMS).
func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0µs"}, {-100 * time.Nanosecond, "0µs"}, {400 * time.Nanosecond, "0µs"}, {600 * time.Nanosecond, "1µs"},
		{850 * time.Microsecond, "850µs"}, {12345 * time.Microsecond, "12.35ms"}, {1234567 * time.Microsecond, "1.235s"},
		{-2 * time.Millisecond, "-2ms"}, {65 * time.Second, "1m5s"},
	}
	for _, tt := range tests {
		if got := FormatDuration(tt.d); got != tt.want {
			t.Errorf("FormatDuration(%d): got %q, want %q", tt.d, got, tt.want)
		}
		if got := FormatDurationMS(float64(tt.d) / float64(time.Millisecond)); got != tt.want {
			t.Errorf("FormatDurationMS(%v): got %q, want %q", float64(tt.d)/float64(time.Millisecond), got, tt.want)
		}
	}
}

// TestHTMLRunDurationAsText: the HTML report shows a run's duration as
// the text report does ("1m5s"), not as a value set against a limit,
// kept to the µs ("65.000123s").
func TestHTMLRunDurationAsText(t *testing.T) {
	c := NewCollector()
	start := time.Now()
	c.Start(start)
	c.Finish(start.Add(65*time.Second + 123*time.Microsecond))
	r := c.Report(Meta{Tape: "t.jsonl"})
	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(html.String(), "1m5s"); n != 2 || strings.Contains(html.String(), "65.000123s") {
		t.Errorf("HTML report shows the duration 1m5s %d times, want 2 (header and summary):\n%s", n, html.String())
	}
}
