package session

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// request is an Item of a client request with the recorded id rec, sent
// with the id sent.
func request(seq int64, rec, sent string) *Item {
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call"}`, rec)
	rpc, err := jsonrpc.Parse([]byte(msg))
	if err != nil {
		panic(err)
	}
	return &Item{Rec: tape.Message{Seq: seq, Session: "s1", Dir: tape.C2S, Msg: []byte(msg)}, RPC: rpc, Out: []byte(msg), SentID: []byte(sent)}
}

func pendOf(it *Item) *pend {
	return &pend{req: it, key: keyOf(it.SentID), recKey: keyOf(it.RPC.ID)}
}

// pendsOf keys each pend by its sent id, as inFlight does.
func pendsOf(ps ...*pend) *pends {
	m := newPends()
	for _, p := range ps {
		m.put(p.key, p)
	}
	return &m
}

func TestPairLive(t *testing.T) {
	waiting := pendOf(request(1, "1", "101"))
	answered := pendOf(request(3, "2", "102"))
	answered.actual = &transport.Incoming{}
	faulted := pendOf(request(5, "3", "103"))
	faulted.req.Fault = &chaos.Fault{Kind: chaos.Duplicate}
	faulted.actual = &transport.Incoming{}
	timedOut := pendOf(request(7, "4", "104"))
	timedOut.timedOut = true
	polling := pendOf(request(9, "5", "106")) // a tasks/get waiting for its next poll
	polling.pollWait = true
	sent := pendsOf(waiting, answered, faulted, timedOut, polling)
	quoted := pendOf(request(1, "1", `"101"`))
	tests := []struct {
		name string
		id   string
		f    inFlight
		want *pend
		pr   pairing
	}{
		{"the request sent with its id", "101", inFlight{sent: sent}, waiting, pairWith},
		{"a string id of the same key", `"101"`, inFlight{sent: pendsOf(quoted)}, quoted, pairWith},
		{"a string id is not the number", `"101"`, inFlight{sent: sent}, nil, pairStray},
		{"a number is not the string id", "101", inFlight{sent: pendsOf(quoted)}, nil, pairStray},
		{"a null id is the oldest faulted request's", "null", inFlight{sent: sent, faulted: waiting}, waiting, pairWith},
		{"a null id with no faulted request is a stray", "null", inFlight{sent: sent}, nil, pairStray},
		{"the second answer of a faulted message", "103", inFlight{sent: sent}, faulted, pairDuplicate},
		{"matches nothing after faults were sent", "999", inFlight{sent: sent, faultsSent: true}, nil, pairTolerated},
		{"after its request timed out", "104", inFlight{sent: sent, late: map[string]bool{"104": true}}, timedOut, pairLate},
		{"given up on and forgotten", "105", inFlight{sent: sent, late: map[string]bool{"105": true}}, nil, pairLate},
		{"a second answer without a fault", "102", inFlight{sent: sent}, answered, pairStray},
		{"a second answer while the poll waits", "106", inFlight{sent: sent}, polling, pairStray},
		{"matches nothing", "999", inFlight{sent: sent}, nil, pairStray},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, pr := pairLive([]byte(tt.id), tt.f)
			if p != tt.want || pr != tt.pr {
				t.Errorf("got %v, %d; want %v, %d", p, pr, tt.want, tt.pr)
			}
		})
	}
}

func TestPairRecorded(t *testing.T) {
	first := pendOf(request(1, "1", "101"))
	later := pendOf(request(3, "2", "102"))
	s := newSession("s1", nil)
	s.byRec.put(first.recKey, first)
	s.byRec.put(later.recKey, later)
	answer := func(id string, overHTTP bool) *Item {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32700,"message":"x"}}`, id)
		rpc, _ := jsonrpc.Parse([]byte(msg))
		it := &Item{Rec: tape.Message{Dir: tape.S2C, Msg: []byte(msg)}, RPC: rpc}
		if overHTTP {
			it.Rec.HTTP = &tape.HTTPMeta{}
		}
		return it
	}
	tests := []struct {
		name string
		it   *Item
		want *pend
	}{
		{"by its recorded id", answer("1", false), first},
		{"an HTTP refusal with a null id: the latest request", answer("null", true), later},
		{"a null id over stdio answers nothing", answer("null", false), nil},
		{"an id not in flight", answer("9", true), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pairRecorded(s, tt.it); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRetryWait(t *testing.T) {
	now := time.Unix(1000, 0)
	refused := func(status int, after time.Duration) error {
		return &transport.HTTPError{Status: status, RetryAfter: after}
	}
	tests := []struct {
		name     string
		err      error
		next     time.Duration
		deadline time.Time
		want     time.Duration
		ok       bool
	}{
		{"a 503 after the backoff's interval", refused(503, 0), 100 * ms, time.Time{}, 100 * ms, true},
		{"Retry-After longer than the backoff", refused(429, 2*time.Second), 100 * ms, time.Time{}, 2 * time.Second, true},
		{"Retry-After shorter than the backoff", refused(429, ms), 100 * ms, time.Time{}, 100 * ms, true},
		{"within the deadline", refused(502, 0), 100 * ms, now.Add(time.Second), 100 * ms, true},
		{"past the deadline: not worth it", refused(429, 5*time.Second), 100 * ms, now.Add(time.Second), 5 * time.Second, false},
		{"no retries left", refused(503, 0), backoff.Stop, time.Time{}, 0, false},
		{"a 400 is no temporary refusal", refused(400, 0), 100 * ms, time.Time{}, 0, false},
		{"nor a broken connection", errors.New("broken pipe"), 100 * ms, time.Time{}, 0, false},
		{"nor success", nil, 100 * ms, time.Time{}, 0, false},
		{"a wrapped 408", fmt.Errorf("send: %w", refused(408, 0)), 10 * ms, time.Time{}, 10 * ms, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wait, ok := retryWait(tt.err, tt.next, now, tt.deadline)
			if wait != tt.want || ok != tt.ok {
				t.Errorf("got %s, %v; want %s, %v", wait, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRetryByRule(t *testing.T) {
	diff := []validator.Difference{{Path: "$.result"}}
	tests := []struct {
		name     string
		vd       validator.Verdict
		attempts int
		want     bool
	}{
		{"failed a retry rule, retries left", validator.Verdict{Diffs: diff, OnFailure: validator.OnFailureRetry, MaxRetries: 2}, 1, true},
		{"no retries left", validator.Verdict{Diffs: diff, OnFailure: validator.OnFailureRetry, MaxRetries: 2}, 2, false},
		{"passed", validator.Verdict{OnFailure: validator.OnFailureRetry, MaxRetries: 2}, 0, false},
		{"failed a rule that does not retry", validator.Verdict{Diffs: diff, OnFailure: validator.OnFailureError, MaxRetries: 2}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryByRule(tt.vd, tt.attempts); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestHold: the order rule's hold and its reason, over a session's state.
func TestHold(t *testing.T) {
	open := pendOf(request(1, "1", "101"))
	done := pendOf(request(1, "1", "101"))
	done.actual = &transport.Incoming{}
	conn := struct{ transport.Conn }{}
	initPend := pendOf(msgs(t, "c2s", initReq)[0])
	tests := []struct {
		name string
		s    session
		want string
	}{
		{"free", session{conn: conn}, ""},
		{"still dialling", session{}, "connection"},
		{"the in-flight limit", session{conn: conn, inflight: 2}, "inflight"},
		{"the order rule waits for an answer", session{conn: conn, waitFor: open}, "order"},
		{"the handshake waits for initialize's answer", session{conn: conn, waitFor: initPend}, "handshake"},
		{"the answer came", session{conn: conn, waitFor: done}, ""},
		{"a server request the recording answered", session{conn: conn, awaiting: &Item{}}, "server_request"},
		{"the limit first", session{conn: conn, inflight: 2, waitFor: open}, "inflight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.holdReason(2); got != tt.want {
				t.Errorf("holdReason = %q, want %q", got, tt.want)
			}
			if got := tt.s.held(2); got != (tt.want != "") {
				t.Errorf("held = %v, want %v", got, tt.want != "")
			}
		})
	}
}

func TestOrderRule(t *testing.T) {
	tests := []struct {
		o                       Order
		own, recorded, fromServ bool
	}{
		{OrderCausal, false, true, true},
		{OrderSequential, true, false, true},
		{OrderNone, false, false, false},
		{OrderRandom, false, true, true},
	}
	for _, tt := range tests {
		if tt.o.holds() != (tt.o != OrderNone) {
			t.Errorf("%s: holds = %v", tt.o, tt.o.holds())
		}
		if got := [3]bool{tt.o.waitsForOwn(), tt.o.waitsForRecorded(), tt.o.waitsForServer()}; got != [3]bool{tt.own, tt.recorded, tt.fromServ} {
			t.Errorf("%s: waits for its own answer, the recorded ones, the server's requests: %v, want %v", tt.o, got, [3]bool{tt.own, tt.recorded, tt.fromServ})
		}
	}
}

// TestFirstToGo: which message a session waits on before it connects:
// the first of its epoch, if it is paced; none if the first needs the
// connection at once (a client's answer, an injected message).
func TestFirstToGo(t *testing.T) {
	e := &Env{Epoch: func() uint64 { return 1 }}
	its := msgs(t, "c2s", initReq, "c2s", rootsAnswer, "c2s", pingReq)
	for _, it := range its {
		it.Epoch = 1
	}
	stale := msgs(t, "c2s", listReq)[0] // epoch 0
	injected := msgs(t, "c2s", pingReq)[0]
	injected.Epoch, injected.Injected = 1, true
	end := &Item{End: true, Epoch: 1}
	tests := []struct {
		name     string
		items    []*Item
		want     *Item
		notPaced bool
	}{
		{"none yet", nil, nil, false},
		{"a request", []*Item{its[0], its[2]}, its[0], false},
		{"past the end and a stale one", []*Item{end, stale, its[2]}, its[2], false},
		{"a client's answer first", []*Item{its[1], its[0]}, nil, true},
		{"an injected message first", []*Item{injected, its[0]}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := firstPaced(e, tt.items); got != tt.want {
				t.Errorf("firstPaced = %v, want %v", got, tt.want)
			}
			if got := firstNotPaced(e, tt.items); got != tt.notPaced {
				t.Errorf("firstNotPaced = %v, want %v", got, tt.notPaced)
			}
		})
	}
}
