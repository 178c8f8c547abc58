package validator

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		names   []string
		in, out string
	}{
		{[]string{"uuid"}, "a 0b9a3c1e-1234-4abc-8def-0123456789ab b", "a <uuid> b"},
		{[]string{"uuid"}, "0b9a3c1e-1234-4abc-8def-0123456789abc", "0b9a3c1e-1234-4abc-8def-0123456789abc"},
		{[]string{"timestamp"}, "2026-01-02T03:04:05Z", "<timestamp>"},
		{[]string{"timestamp"}, "2026-01-02t03:04:05.123456789+05:30", "<timestamp>"},
		{[]string{"timestamp"}, "on 2026-01-02 at noon", "on <timestamp> at noon"},
		{[]string{"timestamp"}, "2026-01-02 03:04", "<timestamp>"},
		{[]string{"timestamp"}, "20260102", "20260102"},
		{[]string{"timestamp"}, "x2026-01-02", "x2026-01-02"},
		{[]string{"ids"}, "created item 1234", "created item <id>"},
		{[]string{"ids"}, "order #42, ref ord_9f8e7d6c, v2, mp3, -7", "order #<id>, ref <id>, v2, mp3, -<id>"},
		{[]string{"ids"}, "0b9a3c1e-1234-4abc-8def-0123456789ab", "<id>"},
		{[]string{"ids"}, "no numbers here", "no numbers here"},
		{[]string{"timestamp", "ids"}, "at 2026-01-02T03:04:05Z item 7", "at <timestamp> item <id>"},
		{[]string{"uuid", "ids"}, "id 0b9a3c1e-1234-4abc-8def-0123456789ab", "id <uuid>"},
		// Beyond RFC 3339: what JavaScript, HTTP, C, Unix and Go write.
		{[]string{"timestamp"}, "Now: Mon Nov 23 2026 10:00:00 GMT+0000 (Coordinated Universal Time).", "Now: <timestamp>."},
		{[]string{"timestamp"}, "Mon Nov 23 2026 10:00:00 GMT+0100", "<timestamp>"},
		{[]string{"timestamp"}, "due Mon Nov 23 2026, soon", "due <timestamp>, soon"},
		{[]string{"timestamp"}, "Last-Modified: Mon, 23 Nov 2026 10:00:00 GMT", "Last-Modified: <timestamp>"},
		{[]string{"timestamp"}, "at 23 Nov 2026 10:00 +0100 ok", "at <timestamp> ok"},
		{[]string{"timestamp"}, "Mon Nov 23 10:00:00 2026", "<timestamp>"},
		{[]string{"timestamp"}, "built Mon Nov  3 10:00:00 UTC 2026 by ci", "built <timestamp> by ci"},
		{[]string{"timestamp"}, "11/23/2026, 10:00:00 AM", "<timestamp>"},
		{[]string{"timestamp"}, "on 1/2/2026", "on <timestamp>"},
		{[]string{"timestamp"}, "2026-11-23 10:00:00.5 +0000 UTC m=+0.1", "<timestamp> m=+0.1"},
		{[]string{"timestamp"}, "Mon Nov 23 is a day", "Mon Nov 23 is a day"},
		{[]string{"timestamp"}, "version 1/2/3", "version 1/2/3"},
		{[]string{"timestamp"}, "10:00:00 alone", "10:00:00 alone"},
		{[]string{"timestamp"}, "read at 3:04:05 PM today", "read at <timestamp> today"},
		{[]string{"timestamp"}, "12:00:00AM", "<timestamp>"},
		{[]string{"timestamp"}, "3:04 PM", "3:04 PM"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			set, err := parseNormalizers(tt.names)
			if err != nil {
				t.Fatal(err)
			}
			if got := set.apply(tt.in); got != tt.out {
				t.Errorf("got %q, want %q", got, tt.out)
			}
		})
	}
}

// TestNormalizePattern: a pattern of the user's own replaces only what it
// matches, before the named normalisers; a bad pattern is an error.
func TestNormalizePattern(t *testing.T) {
	p, err := compilePattern(`took \d+ ms`, "took <n> ms")
	if err != nil {
		t.Fatal(err)
	}
	n := normalizer{patterns: []patternNorm{p}, set: normTimestamp}
	if got, want := n.apply("took 12 ms at 2026-01-02T03:04:05Z, 3 items"), "took <n> ms at <timestamp>, 3 items"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []struct{ pattern, want string }{
		{`took (\d+ ms`, "missing closing )"},
		{`\d*`, "matches the empty string"},
	} {
		if _, err := compilePattern(bad.pattern, "x"); err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("pattern %q: got %v, want ErrConfig saying %q", bad.pattern, err, bad.want)
		}
	}
}
