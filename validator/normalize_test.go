package validator

import "testing"

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
