package scheduler

import (
	"context"
	"runtime"
	"time"
)

// DefaultSpin is the spin threshold New uses; see WithSpin. Measured on Linux
// (BenchmarkPacerRealtime), Go timers fired up to about 1ms late, so a
// shorter spin left most of that oversleep in the lag.
const DefaultSpin = time.Millisecond

// MaxSpin is the longest spin threshold replay, its config file and the
// CLI accept: a session keeps a core busy that long before each message,
// and beyond a second that buys nothing a timer does not.
const MaxSpin = time.Second

// Option configures a Pacer.
type Option func(*Pacer)

// WithSpin sets the spin threshold: Wait sleeps on a timer until d before the
// due time, then yields (runtime.Gosched) until it is due. Go timers can fire
// up to about a millisecond late; spinning the last stretch releases items
// within microseconds, at the cost of a busy goroutine for up to d per item
// (all the time when items are due less than d apart). With many pacers
// running at once (many sessions, few cores), spinning ones compete for the
// cores: there a small d, or 0, may keep lag lower. 0 turns spinning off.
// Negative values count as 0.
func WithSpin(d time.Duration) Option {
	return func(p *Pacer) { p.spin = max(d, 0) }
}

// WithControl gives the pacer a channel of speed changes, read by Wait while
// it blocks; each change takes effect when it is received. Closing the
// channel stops reading it.
func WithControl(ch <-chan Speed) Option {
	return func(p *Pacer) { p.speedCh = ch }
}

// WithPauseControl gives the pacer a channel of pause changes (true pauses,
// false resumes), read by Wait while it blocks. A paused Wait blocks
// until a false arrives. Closing the channel resumes and stops reading it.
func WithPauseControl(ch <-chan bool) Option {
	return func(p *Pacer) { p.pauseCh = ch }
}

// spinUntil yields until due or ctx is done. If the clock stands still
// between two reads (a fake clock, as in testing/synctest, only moves when
// every goroutine is blocked), it sleeps the rest on a timer instead.
func spinUntil(ctx context.Context, due time.Time) error {
	last := time.Now()
	for last.Before(due) {
		runtime.Gosched()
		if err := ctx.Err(); err != nil {
			return err
		}
		now := time.Now()
		if !now.After(last) {
			return sleepCtx(ctx, due.Sub(now))
		}
		last = now
	}
	return nil
}

// sleepCtx sleeps for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// SpinUntil yields the processor in a loop until due, or until ctx is
// done: for the last stretch before a due time, where a timer could fire
// up to a millisecond late. Under a fake clock (testing/synctest) it
// notices that time stands still and sleeps instead.
func SpinUntil(ctx context.Context, due time.Time) error { return spinUntil(ctx, due) }
