package english

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		word string
		want string
	}{
		{1, "session", "1 session"},
		{0, "session", "0 sessions"},
		{2, "fault", "2 faults"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
		{2, "key", "2 keys"},
		{1, "run", "1 run"},
		{-1, "run", "-1 runs"},
	} {
		if got := Count(tc.n, tc.word); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
		}
	}
}
