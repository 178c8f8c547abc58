package mock

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/mcp"
)

// ChaosKind is a fault a Server injects toward its client, in the answer
// to one request: a chaos.ServeKind, which package chaos lists with the
// fault of run's each is decided as (its carrier) and its other names.
type ChaosKind = chaos.ServeKind

// The faults toward the client.
const (
	// ChaosDelay: the answer sent late (a seeded delay of 100ms to 5s,
	// see delays), after the notifications recorded before it.
	ChaosDelay = chaos.ServeDelay
	// ChaosSlow: the answer written in pieces of 1 to 64 bytes with
	// pauses of 1 to 50ms (chaos.Fault.SlowWrite), when the listener can
	// (transport.SessionInfo.Paces); else sent whole after the time those
	// pieces would have taken.
	ChaosSlow = chaos.ServeSlow
	// ChaosMissing: no answer. The notifications recorded before it are
	// sent; then the request's Handle waits for the client to go (ctx)
	// or the session to close, as a server that never answers.
	ChaosMissing = chaos.ServeMissing
	// ChaosError: a JSON-RPC error with the request's id in place of the
	// answer (-32603 or -32000, chaos.MutateAnswer).
	ChaosError = chaos.ServeError
	// ChaosMalformed: bytes that are not a valid answer in its place: not
	// JSON, truncated, a wrong id, or jsonrpc "1.0" (chaos.MutateAnswer).
	ChaosMalformed = chaos.ServeMalformed
	// ChaosOutOfOrder: the notifications recorded before the answer sent
	// after it; for an answer without notifications, the answer held
	// until the live session's next answer has been sent (at most
	// reorderHold), so that two concurrent requests are answered in the
	// other order.
	ChaosOutOfOrder = chaos.ServeOutOfOrder
	// ChaosHangUp: the client's connection dropped (Handle returns
	// transport.ErrHangUp), before anything is sent or after the
	// notifications, before the answer.
	//
	// An answer a hang-up kept from the client, or a missing one the
	// client stopped waiting for (ctx done), is not used up: the
	// request sent again gets it, without the fault, and is no miss.
	ChaosHangUp = chaos.ServeHangUp
)

// ChaosKinds lists the faults toward the client, in a fixed order.
func ChaosKinds() []ChaosKind { return chaos.ServeKinds() }

// delays are ChaosDelay's delays, picked by the fault's Param.
var delays = [...]time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second}

// reorderHold is how long an out-of-order answer waits for the session's
// next answer before it goes anyway.
const reorderHold = time.Second

// ParseChaosKind reads a serve fault's name: case, surrounding space and
// "_" for "-" do not matter, and run's names of the same faults
// (timeout, error-response, invalid-response, slow-write, reorder,
// disconnect) are accepted. The error lists the names.
func ParseChaosKind(s string) (ChaosKind, error) {
	name := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
	if k, ok := chaos.ServeKindNamed(name); ok {
		return k, nil
	}
	names := make([]string, 0, 7)
	for _, k := range ChaosKinds() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown fault %q for serve; known: %s", s, strings.Join(names, ", "))
}

// ParseChaosSpec reads serve's --chaos: comma-separated kind=probability
// pairs, "delay=0.1,missing=0.02,hang-up=0.01". Each probability is in
// [0, 1] and they add up to at most 1 (an answer gets at most one fault).
// An error names the item and what to write.
func ParseChaosSpec(spec string) (map[ChaosKind]float64, error) {
	out := map[ChaosKind]float64{}
	for i, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("chaos spec item %d %q: want kind=probability, such as delay=0.1", i+1, item)
		}
		k, err := ParseChaosKind(name)
		if err != nil {
			return nil, fmt.Errorf("chaos spec item %d %q: %w", i+1, item, err)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("chaos spec item %d %q: %s is given twice; give each kind once", i+1, item, k)
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || p < 0 || p > 1 {
			return nil, fmt.Errorf("chaos spec item %d %q: probability %q is not a number from 0 to 1, such as 0.05", i+1, item, val)
		}
		out[k] = p
	}
	if _, err := toCarriers(out); err != nil {
		return nil, fmt.Errorf("chaos spec %q: %w", spec, err)
	}
	return out, nil
}

func toCarriers(faults map[ChaosKind]float64) (map[chaos.Kind]float64, error) {
	m := make(map[chaos.Kind]float64, len(faults))
	for k, p := range faults {
		c, ok := k.Carrier()
		if !ok {
			return nil, fmt.Errorf("unknown fault %q for serve", string(k))
		}
		m[c] = p
	}
	if _, err := chaos.NewPlan(0, m, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// ChaosTarget aims a fault at the answers to a method, as chaos.Target
// does for run: the Nth recorded call of the method in its recorded
// session (always, or with Probability), or every call with Probability.
type ChaosTarget struct {
	Method      string
	Nth         int
	Fault       ChaosKind
	Probability float64
}

// Chaos is the seeded plan of the faults a Server gives its clients. It
// is immutable, and safe to share.
//
// Which answer gets which fault is chaos.Plan.Decide's pure hash of the
// seed, the session and the recorded request's seq: the session is the
// live session's copy name ("s1#1": the first live session bound to
// recorded session s1, "s1#2" the second; for stateless traffic the
// round: "s1#1" while the recorded requests are answered the first time,
// "s1#2" the second), never the listener's session id nor the time or
// order of arrival. So the same client script against the same tape and
// seed gets the same faults, run after run.
//
// The handshake's answer (initialize) is not faulted, as run never
// faults the handshake, unless a ChaosTarget aims at its method.
type Chaos struct {
	plan  *chaos.Plan
	aimed map[string]bool // the methods of the targets
}

// NewChaos returns the plan for seed: each answer gets fault k with
// probability faults[k]; targets come first, in their order. Errors name
// the fault or target and what to fix.
func NewChaos(seed int64, faults map[ChaosKind]float64, targets ...ChaosTarget) (*Chaos, error) {
	m, err := toCarriers(faults)
	if err != nil {
		return nil, fmt.Errorf("serve chaos: %w", err)
	}
	ts := make([]chaos.Target, len(targets))
	aimed := make(map[string]bool, len(targets))
	for i, t := range targets {
		aimed[t.Method] = true
		k, err := ParseChaosKind(string(t.Fault))
		if err != nil {
			return nil, fmt.Errorf("serve chaos target %d (method %q): %w", i+1, t.Method, err)
		}
		c, _ := k.Carrier() // a parsed kind has one
		ts[i] = chaos.Target{Method: t.Method, Nth: t.Nth, Fault: c, Probability: t.Probability}
	}
	p, err := chaos.NewPlan(seed, m, ts)
	if err != nil {
		return nil, fmt.Errorf("serve %w", err)
	}
	return &Chaos{plan: p, aimed: aimed}, nil
}

// Seed returns the plan's seed.
func (c *Chaos) Seed() int64 { return c.plan.Seed() }

// fault is a decided serve fault.
type fault struct {
	kind ChaosKind
	f    chaos.Fault // its carrier, with the seeded Param
}

// decide returns the fault of the answer to the recorded request seq of
// method, the nth of its method in its recorded session, for the live
// copy named copyName. A nil Chaos gives none.
func (c *Chaos) decide(copyName string, seq int64, method string, nth int) (fault, bool) {
	if c == nil || (mcp.IsHandshake(method) && !c.aimed[method]) {
		return fault{}, false
	}
	f, ok := c.plan.Decide(chaos.Msg{Session: copyName, Seq: seq, Method: method, Kind: "request", Nth: nth})
	if !ok {
		return fault{}, false
	}
	k, ok := chaos.ServeKindOf(f.Kind)
	if !ok {
		return fault{}, false // a kind no serve fault carries: never planned
	}
	return fault{kind: k, f: f}, true
}

// delay is ChaosDelay's delay.
func (f fault) delay() time.Duration { return delays[(f.f.Param>>8)%uint64(len(delays))] }

// hangUpFirst reports whether ChaosHangUp drops the connection before
// anything is sent (else after the notifications).
func (f fault) hangUpFirst() bool { return f.f.Variant() == 0 }

// detail says in words what f does to an answer; hasNotes says whether
// the answer has notifications recorded before it (out-of-order moves
// them), paces whether the listener writes in pieces.
func (f fault) detail(hasNotes, paces bool) string {
	switch f.kind {
	case ChaosDelay:
		return "answer delayed " + f.delay().String()
	case ChaosSlow:
		chunk, pause := f.f.SlowWrite()
		if !paces {
			return fmt.Sprintf("answer held as if written %s at a time with %v pauses (the listener writes whole messages)", english.Count(int64(chunk), "byte"), pause)
		}
		return fmt.Sprintf("answer written %s at a time, %v pauses", english.Count(int64(chunk), "byte"), pause)
	case ChaosMissing:
		return "no answer"
	case ChaosError:
		return f.f.Detail + " instead of the answer"
	case ChaosMalformed:
		return "answer replaced: " + f.f.Detail
	case ChaosOutOfOrder:
		if hasNotes {
			return "notifications sent after the answer"
		}
		return "answer held until the session's next answer (at most " + reorderHold.String() + ")"
	case ChaosHangUp:
		if f.hangUpFirst() {
			return "connection dropped instead of answering"
		}
		return "connection dropped after the notifications, before the answer"
	}
	return ""
}

// Injected is a fault a Server gave a client, as serve's report lists it.
type Injected struct {
	// Seq is the recorded request whose answer it hit.
	Seq int64 `json:"seq"`
	// Session is the live session's copy name ("s1#2"), which the fault
	// was decided by: the same client script gets the same list.
	Session string `json:"session"`
	// Live is the listener's id of the live session (SessionInfo.ID).
	Live   string    `json:"live,omitempty"`
	Method string    `json:"method"`
	Kind   ChaosKind `json:"kind"`
	Detail string    `json:"detail"`
}

// Recorded is the recorded session of the fault's copy: "s1" of "s1#2".
func (i Injected) Recorded() string { return recordedName(i.Session) }

// sortInjected orders faults by session copy, then seq: the order of a
// report, whatever the order the answers went out in.
func sortInjected(in []Injected) {
	sort.SliceStable(in, func(a, b int) bool {
		if in[a].Session != in[b].Session {
			return in[a].Session < in[b].Session
		}
		return in[a].Seq < in[b].Seq
	})
}
