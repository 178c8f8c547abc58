package session

// The decisions an actor takes, as plain functions over values (tested in
// decide_test.go with no goroutines): which request a live answer is the
// answer of, whether to retry a send or a request, and for how long to
// wait before.

import (
	"errors"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// pairing is what becomes of a live answer (pairLive).
type pairing int

const (
	pairWith      pairing = iota // the answer of the request returned
	pairDuplicate                // the second answer of a faulted message sent twice: ignored
	pairTolerated                // matches nothing after chaos faults (e.g. a duplicate-id's): ignored
	pairLate                     // the answer of a request given up on: counted already
	pairStray                    // matches no request in flight: reported as an error
)

// inFlight is what pairLive reads of a session's requests in flight.
type inFlight struct {
	sent       *pends          // by the id sent
	faulted    *pend           // the oldest faulted request not yet answered, or nil
	faultsSent bool            // an outbound fault was sent in the session
	late       map[string]bool // ids given up on (timed out)
}

// pairLive decides which request in flight the live answer with id
// answers: the one sent with that id; an answer with a null id (a parse
// error, say) is the oldest faulted request's. A second answer, one that
// comes after its request timed out, and what matches nothing are told
// apart.
func pairLive(id []byte, f inFlight) (*pend, pairing) {
	p := f.sent.get(id)
	if p == nil && string(id) == "null" {
		p = f.faulted
	}
	// A tasks/get waiting for its next poll has had its answer too.
	heard := p != nil && (p.answered() || p.pollWait)
	switch {
	case heard && p.req.Fault != nil:
		return p, pairDuplicate
	case p == nil && f.faultsSent:
		return nil, pairTolerated
	case (p == nil || p.timedOut) && f.late[jsonrpc.IDKey(id)]:
		return p, pairLate
	case p == nil || heard:
		return p, pairStray
	}
	return p, pairWith
}

// pairRecorded is the request in flight a recorded answer it is the
// answer of: by its recorded id, or (an HTTP refusal with a null id) the
// session's latest request whose recorded answer has not come; nil if none.
func pairRecorded(s *session, it *Item) *pend {
	if p := s.byRec.get(it.RPC.ID); p != nil {
		return p
	}
	return s.refusedOver(it)
}

// retryWait is how long to wait before sending again a message the target
// refused with err (after attempts so far), by the backoff's next interval
// (backoff.Stop: no retries left) and the target's Retry-After, within
// deadline (zero: none): the wait, and false when it is not worth sending
// again (not temporary, no retries left, or too late).
func retryWait(err error, next time.Duration, now, deadline time.Time) (time.Duration, bool) {
	if !temporary(err) || next == backoff.Stop {
		return 0, false
	}
	wait := next
	var he *transport.HTTPError
	if errors.As(err, &he) {
		wait = max(wait, he.RetryAfter)
	}
	if !deadline.IsZero() && now.Add(wait).After(deadline) {
		return wait, false
	}
	return wait, true
}

// temporary reports whether err is an answer worth retrying (HTTP 408,
// 429, 5xx).
func temporary(err error) bool {
	if err == nil {
		return false
	}
	var he *transport.HTTPError
	return errors.As(err, &he) && he.Temporary()
}

// retryByRule reports whether a request whose answer got verdict vd
// (checked without error) after attempts retries is sent again: it
// failed a rule whose on_failure is retry, and retries are left.
func retryByRule(vd validator.Verdict, attempts int) bool {
	return vd.Failed() && vd.OnFailure == validator.OnFailureRetry && attempts < vd.MaxRetries
}
