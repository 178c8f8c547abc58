package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestOrderRandom: runs of client messages go out shuffled, the same way
// for the same seed, another way for another; nothing is lost and answers
// still match.
func TestOrderRandom(t *testing.T) {
	var b strings.Builder
	b.WriteString(header)
	seq := 0
	put := func(dir, msg string) {
		b.WriteString(line(seq, seq*10, dir, msg))
		seq++
	}
	put("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	put("s2c", `{"jsonrpc":"2.0","id":0,"result":{}}`)
	for i := range 12 {
		put("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}`, i))
	}
	put("c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	put("s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	path := writeFile(t, "random.jsonl", b.String())

	order := func(seed int64) []int64 {
		t.Helper()
		e, err := New(withMock(Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Order: OrderRandom, OrderSeed: seed}))
		if err != nil {
			t.Fatal(err)
		}
		var sent []int64
		e.OnResult(func(r report.Result) {
			if r.Dir == "c2s" {
				sent = append(sent, r.Seq)
			}
		})
		rep, err := e.Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Validation.Passed != 2 || rep.Validation.Failed != 0 {
			t.Fatalf("passed %d failed %d, want both answers to pass", rep.Validation.Passed, rep.Validation.Failed)
		}
		return sent
	}
	a, again, other := order(1), order(1), order(2)
	if len(a) != 14 {
		t.Fatalf("sent %v, want 14 client messages", a)
	}
	if !slices.Equal(a, again) {
		t.Errorf("seed 1 twice: %v and %v", a, again)
	}
	if slices.Equal(a, other) {
		t.Errorf("seeds 1 and 2 gave the same order %v", a)
	}
	sorted := slices.Sorted(slices.Values(a))
	if slices.Equal(a, sorted) {
		t.Errorf("order %v is the recorded one: nothing was shuffled", a)
	}
	if a[0] != 0 {
		t.Errorf("initialize went out at %d, want first (its answer closes its run)", slices.Index(a, 0))
	}
}
