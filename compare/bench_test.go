package compare_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/replayctl/replayctl/compare"
	"github.com/replayctl/replayctl/internal/testserver/volatilemcp"
	"github.com/replayctl/replayctl/replay"
)

// BenchmarkCompare is what compare costs beside the three plain replays
// it makes: one session of rounds of stamp, greet and add (3 calls a
// round), fast, against the volatile server on loopback HTTP as primary
// and candidate. what=compare is one compare.Run; what=3runs is three
// replay.Run of the same tape and options, one after the other.
func BenchmarkCompare(b *testing.B) {
	srv := httptest.NewServer(volatilemcp.Handler())
	defer srv.Close()
	target := replay.HTTP(srv.URL)
	for _, rounds := range []int{100, 1000} {
		tp := volatileTape(b, rounds)
		calls := 3 * rounds
		opts := []replay.Option{replay.WithSpeed(replay.Fast()), replay.Timeout(30 * time.Second)}
		b.Run(fmt.Sprintf("calls=%d/what=compare", calls), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rep, err := compare.Run(context.Background(), tp, target, target, compare.ReplayOptions(opts...))
				if err != nil || len(rep.Changed) != 0 {
					b.Fatalf("err %v, changed %v", err, rep != nil && len(rep.Changed) != 0)
				}
			}
		})
		b.Run(fmt.Sprintf("calls=%d/what=3runs", calls), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for range 3 {
					rep, err := replay.Run(context.Background(), tp, append(opts, replay.Against(target))...)
					if err != nil || rep.ExitStatus() == 3 {
						b.Fatalf("err %v", err)
					}
				}
			}
		})
	}
}
