package mock

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// allFaults gives each serve fault the same share.
var allFaults = map[ChaosKind]float64{
	ChaosDelay: 0.08, ChaosSlow: 0.08, ChaosMissing: 0.08, ChaosError: 0.08,
	ChaosMalformed: 0.08, ChaosOutOfOrder: 0.08, ChaosHangUp: 0.08,
}

// chaosRun plays the recorded client script once against a fresh Server
// with the faults of seed, in a synctest bubble (delays and missing
// answers cost no real time), and returns what it injected.
func chaosRun(t *testing.T, b []byte, stateless bool, seed int64) []Injected {
	t.Helper()
	msgs := tapeMessages(t, b)
	var got []Injected
	synctest.Test(t, func(t *testing.T) {
		plan, err := NewChaos(seed, allFaults)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := NewServer(tape.Bytes("chaos", b), WithChaos(plan))
		if err != nil {
			t.Fatal(err)
		}
		drive(t, srv, msgs, clientOpts{stateless: stateless, idPrefix: "c", timeout: time.Minute,
			info: transport.SessionInfo{ID: fmt.Sprintf("random-%d", time.Now().UnixNano())}})
		got = srv.Injected()
	})
	return got
}

// TestServerChaosSameSeed plays the same client script twice with the
// same seed: the same faults (kind, detail, session copy, seq), though
// the listener's session ids differ; another seed gives others.
func TestServerChaosSameSeed(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev.name, func(t *testing.T) {
			b := recordedTape(t, rev.version)
			first := chaosRun(t, b, rev.stateless, 7)
			second := chaosRun(t, b, rev.stateless, 7)
			if len(first) == 0 {
				t.Fatal("seed 7 injected nothing; the test needs faults")
			}
			strip := func(in []Injected) []Injected {
				out := make([]Injected, len(in))
				for i, x := range in {
					x.Live = ""
					out[i] = x
				}
				return out
			}
			if !reflect.DeepEqual(strip(first), strip(second)) {
				t.Errorf("seed 7 twice:\n%+v\n%+v", first, second)
			}
			other := chaosRun(t, b, rev.stateless, 8)
			if reflect.DeepEqual(strip(first), strip(other)) {
				t.Errorf("seeds 7 and 8 gave the same faults: %+v", first)
			}
			t.Logf("seed 7: %d faults, seed 8: %d", len(first), len(other))
		})
	}
}

// TestServerChaosKinds aims each fault at the recorded call of
// test_tool_with_progress (the third tools/call; three progress
// notifications before its answer) and checks what the client gets.
func TestServerChaosKinds(t *testing.T) {
	for _, rev := range revisions {
		b := recordedTape(t, rev.version)
		msgs := tapeMessages(t, b)
		for _, kind := range ChaosKinds() {
			for _, paces := range []bool{false, true} {
				if paces && kind != ChaosSlow {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/paces=%v", rev.name, kind, paces), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) { chaosKind(t, b, msgs, rev.stateless, kind, paces) })
				})
			}
		}
	}
}

func chaosKind(t *testing.T, b []byte, msgs []tape.Message, stateless bool, kind ChaosKind, paces bool) {
	plan, err := NewChaos(1, nil, ChaosTarget{Method: "tools/call", Nth: 3, Fault: kind})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(tape.Bytes("kinds", b), WithChaos(plan))
	if err != nil {
		t.Fatal(err)
	}
	const timeout = time.Minute
	xs := drive(t, srv, msgs, clientOpts{stateless: stateless, idPrefix: "k", timeout: timeout, info: transport.SessionInfo{Paces: paces}})
	inj := srv.Injected()
	if len(inj) != 1 || inj[0].Kind != kind || inj[0].Method != "tools/call" {
		t.Fatalf("Injected() = %+v, want one %s", inj, kind)
	}
	var x exchange
	var rest []exchange
	for _, e := range xs {
		if e.seq == inj[0].Seq {
			x = e
		} else {
			rest = append(rest, e)
		}
	}
	wantRecorded(t, msgs, rest) // the other calls are untouched
	var clean []exchange        // what the faulted call would have got
	func() {
		srv, err := NewServer(tape.Bytes("clean", b))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range drive(t, srv, msgs, clientOpts{stateless: stateless, idPrefix: "k", timeout: timeout}) {
			if e.seq == x.seq {
				clean = append(clean, e)
			}
		}
	}()
	want := clean[0].got
	if len(want) != 4 || !bytes.Contains(want[0], []byte("notifications/progress")) {
		t.Fatalf("the progress call's recorded messages: %q", want)
	}
	answer := want[len(want)-1]
	notes := want[:len(want)-1]
	last := func() []byte { return x.got[len(x.got)-1] }
	switch kind {
	case ChaosDelay:
		d := plan.delayOf(t, x.seq)
		if x.err != nil || !reflect.DeepEqual(x.got, want) || x.took != d {
			t.Errorf("got %q (%v) after %v, want the recorded messages after %v", x.got, x.err, x.took, d)
		}
	case ChaosSlow:
		if x.err != nil || !reflect.DeepEqual(x.got, want) {
			t.Errorf("got %q (%v), want the recorded messages", x.got, x.err)
		}
		chunk, pause := plan.fault(t, x.seq).SlowWrite()
		if paces && (x.paced != 1 || x.took != 0) {
			t.Errorf("%d messages paced, after %v; want the answer paced, at once", x.paced, x.took)
		}
		if wait := time.Duration((len(answer)+chunk-1)/chunk-1) * pause; !paces && (x.paced != 0 || x.took != wait) {
			t.Errorf("%d messages paced, after %v; want none, after %v", x.paced, x.took, wait)
		}
	case ChaosMissing:
		if !errors.Is(x.err, context.DeadlineExceeded) || !reflect.DeepEqual(x.got, notes) || x.took != timeout {
			t.Errorf("got %q (%v) after %v, want the notifications only and the client's deadline", x.got, x.err, x.took)
		}
	case ChaosError:
		r, err := jsonrpc.Parse(last())
		if x.err != nil || err != nil || r.Kind != jsonrpc.KindError || string(r.ID) != string(x.live) || !reflect.DeepEqual(x.got[:len(x.got)-1], notes) {
			t.Errorf("got %q (%v), want the notifications and an error with id %s", x.got, x.err, x.live)
		}
	case ChaosMalformed:
		r, err := jsonrpc.ParseStrict(last())
		if x.err != nil || bytes.Equal(last(), answer) || err == nil && string(r.ID) == string(x.live) && bytes.Contains(last(), []byte(`"2.0"`)) {
			t.Errorf("got %q (%v), want the answer spoilt", x.got, x.err)
		}
	case ChaosOutOfOrder:
		if x.err != nil || !reflect.DeepEqual(x.got, append([][]byte{answer}, notes...)) {
			t.Errorf("got %q (%v), want the answer, then the notifications", x.got, x.err)
		}
	case ChaosHangUp:
		n := len(notes)
		if plan.fault(t, x.seq).Variant() == 0 {
			n = 0
		}
		if !errors.Is(x.err, transport.ErrHangUp) || len(x.got) != n || n > 0 && !reflect.DeepEqual(x.got, want[:n]) {
			t.Errorf("got %q (%v), want %d notifications and ErrHangUp", x.got, x.err, n)
		}
	default: // a fault added to chaos.ServeKinds must say here what the client gets
		t.Errorf("serve fault %s: this test has no check of what the client gets; add one", kind)
	}
}

// fault returns the carrier fault the plan decides for the first live
// copy's answer to recorded seq (the third tools/call, as targeted).
func (c *Chaos) fault(t *testing.T, seq int64) chaos.Fault {
	t.Helper()
	f, ok := c.decide("s1#1", seq, "tools/call", 3)
	if !ok {
		t.Fatalf("no fault at seq %d", seq)
	}
	return f.f
}

func (c *Chaos) delayOf(t *testing.T, seq int64) time.Duration {
	f, ok := c.decide("s1#1", seq, "tools/call", 3)
	if !ok {
		t.Fatalf("no fault at seq %d", seq)
	}
	return f.delay()
}

// TestServerOutOfOrderSwap: an out-of-order answer without notifications
// waits for the session's next answer; two concurrent requests are
// answered in the other order. Alone, it goes after reorderHold.
func TestServerOutOfOrderSwap(t *testing.T) {
	b := recordedTape(t, "2025-11-25")
	msgs := tapeMessages(t, b)
	var first, second []byte // tools/call test_simple_text, and the call after it
	for i, m := range msgs {
		if bytes.Contains(m.Msg, []byte(`"test_simple_text"`)) && m.Dir == tape.C2S {
			first = m.Msg
			for _, n := range msgs[i+1:] {
				if n.Dir == tape.C2S {
					second = n.Msg
					break
				}
			}
			break
		}
	}
	synctest.Test(t, func(t *testing.T) {
		plan, err := NewChaos(1, nil, ChaosTarget{Method: "tools/call", Nth: 1, Fault: ChaosOutOfOrder})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := NewServer(tape.Bytes("swap", b), WithChaos(plan))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		s, _ := srv.Open(ctx, transport.SessionInfo{ID: "swap"})
		defer s.Close()
		order := make(chan string, 4)
		send := func(_ context.Context, msg []byte) error {
			order <- string(mustParse(t, msg).ID)
			return nil
		}
		for i, m := range msgs[:4] { // initialize, initialized, tools/list
			if m.Dir == tape.C2S {
				if err := s.Handle(ctx, mustParse(t, m.Msg).WithID(fmt.Appendf(nil, "%d", 100+i)), func(context.Context, []byte) error { return nil }); err != nil {
					t.Fatal(err)
				}
			}
		}
		done := make(chan error, 1)
		go func() { done <- s.Handle(ctx, mustParse(t, first).WithID([]byte(`"A"`)), send) }()
		synctest.Wait()
		if len(order) != 0 {
			t.Fatalf("the held answer went before another: %s", <-order)
		}
		if err := s.Handle(ctx, mustParse(t, second).WithID([]byte(`"B"`)), send); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if a, b := <-order, <-order; a != `"B"` || b != `"A"` {
			t.Errorf("answers in order %s, %s; want B, then A", a, b)
		}
	})
}

// TestServerChaosDroppedAnswerNotUsedUp: an answer a fault kept from the
// client — a hang-up, or a missing answer the client stopped waiting
// for — is not used up: the request sent again gets the recorded answer,
// without the fault, and is no miss; session-based and stateless alike.
func TestServerChaosDroppedAnswerNotUsedUp(t *testing.T) {
	b, err := os.ReadFile("../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []ChaosKind{ChaosHangUp, ChaosMissing} {
		for _, stateless := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stateless=%t", kind, stateless), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					plan, err := NewChaos(1, nil, ChaosTarget{Method: "tools/list", Nth: 1, Fault: kind})
					if err != nil {
						t.Fatal(err)
					}
					srv, err := NewServer(tape.Bytes("quickstart", b), WithChaos(plan))
					if err != nil {
						t.Fatal(err)
					}
					sess, err := srv.Open(t.Context(), transport.SessionInfo{ID: "live", Stateless: stateless})
					if err != nil {
						t.Fatal(err)
					}
					defer sess.Close()
					var got [][]byte
					keep := func(_ context.Context, m []byte) error { got = append(got, bytes.Clone(m)); return nil }
					for _, m := range []string{
						`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"example-client","version":"1.0.0"}}}`,
						`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
					} {
						if err := sess.Handle(t.Context(), []byte(m), keep); err != nil {
							t.Fatal(err)
						}
					}
					list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					err = sess.Handle(ctx, list, keep)
					cancel()
					if want := map[ChaosKind]error{ChaosHangUp: transport.ErrHangUp, ChaosMissing: context.DeadlineExceeded}[kind]; !errors.Is(err, want) {
						t.Fatalf("first tools/list: %v, want %v", err, want)
					}
					got = nil
					if err := sess.Handle(t.Context(), list, keep); err != nil {
						t.Fatalf("tools/list again: %v", err)
					}
					if len(got) != 1 || !bytes.Contains(got[0], []byte(`"tools"`)) {
						t.Errorf("tools/list again got %q, want the recorded answer", got)
					}
					if m := srv.Misses(); len(m) != 0 {
						t.Errorf("misses %+v, want none", m)
					}
					if inj := srv.Injected(); len(inj) != 1 || inj[0].Kind != kind {
						t.Errorf("Injected() = %+v, want the one %s", inj, kind)
					}
				})
			})
		}
	}
}
