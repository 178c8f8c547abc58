package history_test

import (
	"errors"
	"testing"

	"github.com/replayctl/replayctl/history"
)

// FuzzParseBudget: any input is a budget or an ErrBudget, never a panic;
// a budget's limit moves the way its sign says.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"p99{method:tools/call}+20%", "throughput-10%", "error_rate+0.5pt", "p95+5ms", "p99{tool:a-b}-1%", "+", "{}-", "p99{method:+}+1%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := history.ParseBudget(s)
		if err != nil {
			if !errors.Is(err, history.ErrBudget) {
				t.Fatalf("%q: error %v does not wrap ErrBudget", s, err)
			}
			return
		}
		if l := b.Limit(100); (b.Up && l < 100) || (!b.Up && l > 100) {
			t.Fatalf("%q: limit %v against 100 moves the wrong way", s, l)
		}
	})
}
