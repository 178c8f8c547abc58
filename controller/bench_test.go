package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchmarkAdmit measures one message through a running gate: Admit, Sent
// and Judged, as the engine's stages call them (three actor round trips).
func BenchmarkAdmit(b *testing.B) {
	for _, bps := range []int{0, 10} {
		b.Run(fmt.Sprintf("breakpoints=%d", bps), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := New(&fakeEngine{}, WithStartRunning(), WithOnError(OnErrorContinue))
			var wg sync.WaitGroup
			wg.Go(func() { _ = c.Run(ctx) })
			defer wg.Wait()
			defer cancel()
			for i := range bps {
				if _, err := c.AddBreakpoint(ctx, fmt.Sprintf(`params.arguments.message == "never%d"`, i)); err != nil {
					b.Fatal(err)
				}
			}
			if err := c.Start(ctx); err != nil {
				b.Fatal(err)
			}
			m := newTape(2, 0)[1].Msg
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Admit(ctx, m, 0); err != nil {
					b.Fatal(err)
				}
				c.Sent(m.Seq)
				c.Judged(resultFor(m))
			}
		})
	}
}

// BenchmarkMatch measures one breakpoint check of a message.
func BenchmarkMatch(b *testing.B) {
	m := newTape(2, 0)[1].Msg
	for _, spec := range []string{"12", "tools/call", `method == "tools/call" && params.arguments.message == "m7"`} {
		c, err := ParseCondition(spec)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("kind="+c.Kind(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Match(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
