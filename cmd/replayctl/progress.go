package main

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = 200 * time.Millisecond

// progress counts a run's results as they are judged and, once started,
// redraws one line on a terminal, k6-style: done / total messages, rate,
// p99 latency, failures and errors, elapsed and time left.
//
// It reads the replay's event stream as a live viewer (consumer): the
// judged events, from the stream's goroutine. When it is behind, the
// stream drops its oldest events (counted, in the report's warnings) and
// the replay never waits for it; the final line is drawn from the
// report's own counts. The line is drawn by one goroutine of its own
// (start), which stop ends and waits for.
type progress struct {
	// done counts tape messages accounted for, as the report counts
	// them: each sent message, each answer received, each skip.
	done, failed, errs atomic.Int64
	// total is the tape's messages times the sessions; 0 until known.
	total atomic.Int64
	// connected counts the sessions that have connected (dialled
	// events); sessions is the tape's sessions times --sessions, 0 until
	// known. Until they are all connected the line says how many are: a
	// run of many sessions spends its start connecting them.
	connected, sessions atomic.Int64
	latency             latencyCounts

	w        io.Writer // each Write is one whole redraw (redaction sees it whole)
	began    time.Time
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stopOnce sync.Once
}

// consumer is the progress line's reader of the event stream: live, for
// judged and dialled events only.
func (p *progress) consumer() event.Consumer {
	return event.Consumer{Name: "the progress line", Live: true, Types: []event.Type{event.Judged, event.Dialled},
		Handle: func(batch []event.Event) error {
			for i := range batch {
				if batch[i].Type == event.Dialled {
					p.connected.Add(1)
				} else if r := batch[i].Result; r != nil {
					p.observe(*r)
				}
			}
			return nil
		}}
}

// observe counts one judged result; it is safe from any goroutine and does
// not block.
func (p *progress) observe(r report.Result) {
	var n int64
	sent := !r.Sent.IsZero() && r.Dir != report.DirS2C
	if sent {
		n++
	}
	if !r.Answered.IsZero() {
		n++
	}
	switch r.Verdict {
	case report.Skipped:
		n++
	case report.Failed:
		p.failed.Add(1)
	case report.Error, report.Timeout:
		p.errs.Add(1)
	}
	if sent && r.Kind == report.KindRequest && r.Verdict != report.Timeout && !r.Answered.IsZero() {
		p.latency.record(r.Answered.Sub(r.Sent))
	}
	p.done.Add(n)
}

// start draws the line on w every progressEvery until stop; src is
// counted beside it (times sessions) for the total, which stays unknown
// when the tape cannot be read twice.
func (p *progress) start(ctx context.Context, w io.Writer, src tape.Source, sessions int) {
	ctx, p.cancel = context.WithCancel(ctx)
	p.w, p.began = w, time.Now()
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		if n, ss := countMessages(ctx, src); n > 0 {
			p.total.Store(n * int64(max(sessions, 1)))
			p.sessions.Store(ss * int64(max(sessions, 1)))
		}
	}()
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				fmt.Fprint(p.w, "\r"+progressLine(p.snapshot(), false)+"\x1b[K")
			case <-ctx.Done():
				return
			}
		}
	}()
}

// stop ends the redraws, waits for the drawing goroutine, and writes the
// final line, which stays (it ends with a newline), from rep's counts
// (messages the replay left out before it started are in its skipped); no
// final line when rep is nil (nothing was replayed). stop is idempotent
// and does nothing if the line was never started.
func (p *progress) stop(rep *report.Report) {
	if p.cancel == nil {
		return
	}
	p.stopOnce.Do(func() {
		p.cancel()
		p.wg.Wait()
		if rep == nil {
			fmt.Fprint(p.w, "\r\x1b[K")
			return
		}
		s := p.snapshot()
		s.done = rep.Summary.Sent + rep.Summary.Received + rep.Summary.Skipped
		if s.total == 0 {
			s.total = rep.Summary.TotalMessages * int64(max(rep.Summary.Sessions, 1))
		}
		s.stopped = stoppedWhy(rep)
		fmt.Fprint(p.w, "\r"+progressLine(s, true)+"\x1b[K\n")
	})
}

func (p *progress) snapshot() progressState {
	return progressState{
		done: p.done.Load(), total: p.total.Load(),
		connected: p.connected.Load(), sessions: p.sessions.Load(),
		failed: p.failed.Load(), errs: p.errs.Load(),
		p99: p.latency.quantile(0.99), elapsed: time.Since(p.began),
	}
}

// countMessages counts the messages and the sessions of src, giving up
// (0, 0) when ctx ends or the tape cannot be read again.
func countMessages(ctx context.Context, src tape.Source) (msgs, sessions int64) {
	r, err := tape.OpenSource(src)
	if err != nil {
		return 0, 0
	}
	defer r.Close()
	seen := make(map[string]struct{})
	for ctx.Err() == nil {
		m, err := r.Next()
		if err != nil {
			break
		}
		msgs++
		if _, ok := seen[m.Session]; !ok {
			seen[m.Session] = struct{}{}
		}
	}
	if ctx.Err() != nil {
		return 0, 0
	}
	return msgs, int64(len(seen))
}

// stoppedWhy says why the replay of rep stopped before the end of its
// tape, or "" when it went to the end.
func stoppedWhy(rep *report.Report) string {
	switch rep.Summary.Stopped {
	case "":
		return ""
	case report.StopInterrupted:
		return "interrupted"
	case report.StopTarget:
		return "the target failed"
	case report.StopFailure:
		return "at the first failure"
	case report.StopBadInput:
		return "bad input"
	}
	return string(rep.Summary.Stopped)
}

// progressState is what one progress line shows.
type progressState struct {
	done, total, failed, errs int64
	p99, elapsed              time.Duration
	// connected of sessions (0: not known) have connected.
	connected, sessions int64
	// stopped, on the final line: why the replay stopped before the end
	// of its tape ("interrupted"); "" when it went to the end.
	stopped string
}

// progressLine renders s: "running [=====>    ]  45%  810/1800 msgs
// 412/s  p99 1.2ms  0 failed  0 errors  1.9s, 2.3s left"; final says
// "done" and leaves out the time left, or, for a replay stopped early,
// "stopped" and why at the end ("(interrupted)"). A total of 0 (unknown)
// shows the count alone.
func progressLine(s progressState, final bool) string {
	var b strings.Builder
	switch {
	case final && s.stopped != "":
		b.WriteString("stopped ")
	case final:
		b.WriteString("done    ")
	default:
		b.WriteString("running ")
	}
	if s.total > 0 {
		frac := min(float64(s.done)/float64(s.total), 1)
		const width = 20
		filled := int(frac * width)
		bar := strings.Repeat("=", filled)
		if filled < width {
			bar += ">" + strings.Repeat(" ", width-filled-1)
		}
		fmt.Fprintf(&b, "[%s] %3.0f%%  %d/%d msgs", bar, frac*100, s.done, s.total)
	} else {
		fmt.Fprintf(&b, "%d msgs", s.done)
	}
	rate := 0.0
	if s.elapsed > 0 {
		rate = float64(s.done) / s.elapsed.Seconds()
	}
	fmt.Fprintf(&b, "  %.0f/s  p99 %s  %d failed  %d errors  %s", rate, shortDuration(s.p99), s.failed, s.errs, clock(s.elapsed))
	if !final && s.total > 0 && s.done > 0 && s.done < s.total {
		left := time.Duration(float64(s.elapsed) * float64(s.total-s.done) / float64(s.done))
		fmt.Fprintf(&b, ", %s left", clock(left))
	}
	if !final && s.connected < s.sessions {
		fmt.Fprintf(&b, "  %d/%d sessions connected", s.connected, s.sessions)
	}
	if final && s.stopped != "" {
		fmt.Fprintf(&b, " (%s)", s.stopped)
	}
	return b.String()
}

// shortDuration is a latency to about three digits: 850µs, 12.3ms, 1.9s,
// 2m05s; none yet, 0µs (in the units of report.FormatDuration).
func shortDuration(d time.Duration) string {
	switch {
	case d < 500*time.Nanosecond: // what %d of its µs would show as 0
		return "0µs"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// clock is d as elapsed time: 0.2s, 12.5s, 2m05s, 1h02m03s.
func clock(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", max(d, 0).Seconds())
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dh%02dm%02ds", int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second))
}

// latencyCounts is a histogram of latencies in µs, log-linear (8 buckets
// per power of two: within 12.5%), of atomics: record never blocks and
// quantile may read it meanwhile.
type latencyCounts struct {
	buckets [16 + 8*60]atomic.Int64
}

// latencyBucket is the bucket of v µs: exact below 16, then 8 per power
// of two.
func latencyBucket(v uint64) int {
	if v < 16 {
		return int(v)
	}
	shift := bits.Len64(v) - 4 // v>>shift is in [8, 16)
	return 16 + (shift-1)*8 + int(v>>shift) - 8
}

// bucketFloor is the least value of bucket i, in µs.
func bucketFloor(i int) uint64 {
	if i < 16 {
		return uint64(i)
	}
	shift := (i-16)/8 + 1
	return uint64(8+(i-16)%8) << shift
}

func (h *latencyCounts) record(d time.Duration) {
	us := max(d.Microseconds(), 0)
	h.buckets[min(latencyBucket(uint64(us)), len(h.buckets)-1)].Add(1)
}

// quantile is the least latency at or above the q quantile, to the
// bucket's floor; 0 when nothing was recorded.
func (h *latencyCounts) quantile(q float64) time.Duration {
	var counts [len(h.buckets)]int64
	var n int64
	for i := range h.buckets {
		counts[i] = h.buckets[i].Load()
		n += counts[i]
	}
	if n == 0 {
		return 0
	}
	rank := int64(q*float64(n) + 0.5)
	rank = min(max(rank, 1), n)
	var seen int64
	for i, c := range counts {
		seen += c
		if seen >= rank {
			return time.Duration(bucketFloor(i)) * time.Microsecond
		}
	}
	return 0
}
