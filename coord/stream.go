package coord

import (
	"context"
	"sync"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// Stream is a shard's interval stream: an event consumer (Consumer) that
// counts every judged result into the current interval's collector, and
// Take, which hands that interval over and starts the next. The intervals
// add up, without loss, to the shard's whole report.
type Stream struct {
	opts []report.Option
	mu   sync.Mutex // guards the fields below: the event stream's goroutine adds, Take swaps
	col  *report.Collector
	// firstSent is when the shard sent its first client message.
	firstSent time.Time
	seq       int
}

// NewStream returns an empty stream whose collectors have opts (give
// report.IncludeHandshake when the replay counts the handshake). An
// interval carries the totals, histograms and breakdowns by method that
// thresholds judge, not the lists of a report (timeline, sessions,
// failures, errors, faults): the shard's final report has those.
func NewStream(opts ...report.Option) *Stream {
	s := &Stream{opts: append(opts, report.WithTimelineLimit(0), report.WithSessionLimit(0),
		report.WithFailureLimit(0), report.WithErrorLimit(0), report.WithFaultLimit(0))}
	s.col = report.NewCollector(s.opts...)
	return s
}

// Consumer is the stream's reader of the replay's events (give it to
// replay.Events): lossless, in memory, never slow.
func (s *Stream) Consumer() event.Consumer {
	return event.Consumer{
		Name: "coordinator", Types: []event.Type{event.Judged}, Kept: true,
		Handle: func(batch []event.Event) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			for i := range batch {
				ev := &batch[i]
				if ev.Fault != nil {
					s.col.AddFault(*ev.Fault)
				}
				if r := ev.Result; r != nil {
					s.col.Add(*r)
					if r.Dir != report.DirS2C && !r.Sent.IsZero() && (s.firstSent.IsZero() || r.Sent.Before(s.firstSent)) {
						s.firstSent = r.Sent
					}
				}
			}
			return nil
		},
	}
}

// FirstSent is when the shard sent its first client message, zero before.
func (s *Stream) FirstSent() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstSent
}

// Take returns the interval since the last Take (numbered from 1) and
// starts the next.
func (s *Stream) Take() Interval {
	s.mu.Lock()
	col := s.col
	s.col = report.NewCollector(s.opts...)
	s.seq++
	iv := Interval{Seq: s.seq, FirstSent: s.firstSent}
	s.mu.Unlock()
	r := col.Report(report.Meta{})
	iv.Report = &r
	return iv
}

// Stream sends an interval of st every Interval until end is closed,
// then the last one, and returns the error of that last send. It calls
// stop with why (once) when the coordinator answers Stop, or cannot be
// reached for the heartbeat. ctx bounds every send.
func (c *Client) Stream(ctx context.Context, st *Stream, stop func(why string, kind report.StopKind), end <-chan struct{}) error {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	var once sync.Once
	for {
		select {
		case <-end:
			_, err := c.Send(ctx, st.Take())
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		r, err := c.Send(ctx, st.Take())
		switch {
		case err != nil && ctx.Err() == nil:
			once.Do(func() { stop("lost the coordinator: "+err.Error(), report.StopFailure) })
		case err == nil && r.Action == Stop:
			once.Do(func() { stop(r.Reason, r.Kind) })
		}
	}
}
