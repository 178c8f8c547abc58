package report

import "time"

// FormatDuration shows a time to a person with sensible precision, in
// the units every time in replayctl's output is shown in: µs under a
// millisecond (to the µs), ms under a second (to 10µs), s above (to the
// ms): "850µs", "12.35ms", "1.235s", "1m5s". Zero, and anything that
// rounds to it, is "0µs", as FormatMS shows it, never "0s": a zero lag
// reads in the unit of the lags beside it. FormatMS is the same units
// kept to the µs, for a value compared with another (a threshold, a
// difference between runs).
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		d = d.Round(time.Microsecond)
	case d < time.Second:
		d = d.Round(10 * time.Microsecond)
	default:
		d = d.Round(time.Millisecond)
	}
	if d == 0 {
		return "0µs"
	}
	return d.String()
}

// FormatDurationMS is [FormatDuration] of a time in milliseconds, as a
// report holds its times (a run's duration_ms).
func FormatDurationMS(ms float64) string {
	return FormatDuration(time.Duration(ms * float64(time.Millisecond)))
}
