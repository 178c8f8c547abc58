package tape

import (
	"testing"
	"time"
)

// plainISO, parseISO's shortcut, reads a time exactly as time.Parse reads
// it with the layout parseISO would try first, and leaves to time.Parse
// whatever it does not read.
func TestPlainISOAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{
		"2026-03-14T13:40:00", "2026-03-14T13:40:00.000", "2026-03-14 13:40:00.5",
		"2026-03-14T13:40:59.123456789", "2026-03-14T13:40:59.1234567891", "2026-03-14T13:40:00.",
		"2024-02-29T00:00:00", "2025-02-29T00:00:00", "2026-04-31T00:00:00", "2026-01-00T00:00:00",
		"2026-13-01T00:00:00", "2026-00-01T00:00:00", "2026-01-01T24:00:00", "2026-01-01T23:60:00",
		"2026-01-01T23:59:60", "2026-01-01t23:59:59", "2026-01-01T23:59:59Z", "2026-01-01T23:59:59+02:00",
		"2026-1-01T23:59:59", "0000-01-01T00:00:00", "9999-12-31T23:59:59.999999999", "2026-01-01T23:59:59,5",
		"2026-01-01T2a:59:59", "+026-01-01T23:59:59", "2026-01-01T23:59:59.-5", "",
	} {
		layout := "2006-01-02T15:04:05.999999999"
		if len(s) > 10 && s[10] == ' ' {
			layout = "2006-01-02 15:04:05.999999999"
		}
		want, err := time.Parse(layout, s)
		got, ok := plainISO(s)
		if ok && (err != nil || !got.Equal(want) || got.Location() != want.Location()) {
			t.Errorf("plainISO(%q) = %v, time.Parse = %v, %v", s, got, want, err)
		}
		if slow, sok := parseISO(s); ok && (!sok || !slow.Equal(got)) {
			t.Errorf("parseISO(%q) = %v, %v; plainISO %v", s, slow, sok, got)
		}
	}
	for _, s := range []string{"2026-03-14T13:40:00", "2026-03-14T13:40:00.000", "2026-03-14 13:40:00.5", "2024-02-29T00:00:00"} {
		if _, ok := plainISO(s); !ok {
			t.Errorf("plainISO(%q) did not read it", s)
		}
	}
}
