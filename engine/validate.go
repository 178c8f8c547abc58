package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/validator"
)

// validate compares each live answer with the recorded one and adds every
// outcome to the collector. It owns the collector until it returns.
func (e *Engine) validate(ctx context.Context, in <-chan *outcome, v *validator.Validator, c *report.Collector) error {
	for {
		select {
		case o, ok := <-in:
			if !ok {
				// The replay is over when the last answer is judged, not
				// when the target has shut down.
				c.Finish(time.Now())
				e.finished = true
				return nil
			}
			if o.Epoch < e.epoch.Load() && o.Req.Rec.Seq >= 0 {
				continue
			}
			if o.End {
				if e.ctl != nil {
					e.ctl.End()
				}
				continue
			}
			r := judge(o, v)
			c.Add(r)
			e.publish(r)
			if e.ctl != nil && o.Req.paced() && !o.Req.Injected {
				e.ctl.Judged(r)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// judge turns an outcome into a report result: a pure function.
func judge(o *outcome, v *validator.Validator) report.Result {
	it := o.Req
	r := report.Result{
		Seq:     it.Rec.Seq,
		Session: it.Rec.Session,
		Method:  it.RPC.Method,
		Dir:     string(it.Rec.Dir),
		Kind:    it.RPC.Kind.String(),
		Due:     it.Timing.Due,
		Sent:    o.Sent,
		Lag:     it.Timing.Lag,
	}
	if r.Due.IsZero() {
		r.Due = o.Sent
	}
	// Lag is measured at the send, not at the pacer's release: a message
	// held up between the two (by the order rule, or a busy target) is late.
	if !o.Sent.IsZero() {
		r.Lag = max(o.Sent.Sub(r.Due), 0)
	}
	if o.Actual != nil {
		r.Answered = o.Actual.At
	}
	switch {
	case o.Skipped != "":
		r.Verdict, r.Err = report.Skipped, o.Skipped
	case o.Timeout:
		r.Verdict, r.ErrKind, r.Err = report.Timeout, "timeout", o.Err.Error()
	case o.Err != nil:
		r.Verdict, r.ErrKind, r.Err = report.Error, "target", o.Err.Error()
	case it.RPC.Kind != jsonrpc.KindRequest:
		r.Verdict = report.Sent
	case o.Expected == nil:
		r.Verdict, r.Err = report.Sent, "the tape has no recorded answer to compare with"
	default:
		diffs, err := v.Compare(o.Expected.Rec.Msg, o.Actual.Msg)
		switch {
		case err != nil:
			r.Verdict, r.ErrKind, r.Err = report.Error, "invalid_answer", err.Error()
		case len(diffs) == 0:
			r.Verdict = report.Passed
		default:
			r.Verdict = report.Failed
			r.Differences = make([]report.Difference, len(diffs))
			for i, d := range diffs {
				r.Differences[i] = report.Difference{Path: d.Path, Expected: d.Expected, Actual: d.Actual, Kind: string(d.Kind)}
			}
		}
	}
	return r
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
