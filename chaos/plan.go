package chaos

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
)

// Msg is what Decide knows of a message about to be sent to the target.
type Msg struct {
	Session string
	Seq     int64 // the message's seq on the tape
	Method  string
	// Kind is the message's kind as package jsonrpc names it: "request",
	// "notification", "response" or "error" (a client's answer to a server
	// request). It limits the faults that can hit the message (see
	// package doc); "" means unknown, and then every fault may.
	Kind string
	// Nth counts the calls of Method in this session, this one included
	// (1 for the first). The caller counts; targets match on it.
	Nth int
}

// Fault is one decided fault.
type Fault struct {
	Kind    Kind
	Seq     int64
	Session string
	// Detail says which variant, in words for the report: "truncated
	// JSON", "burst of 5".
	Detail string
	// Param is the fault's own seeded randomness: which variant, and its
	// sizes (see Fault.BurstSize, Fault.ReorderWindow, Fault.SlowWrite,
	// Fault.DisconnectAt). Mutate is a pure function of it.
	Param uint64
	// MsgKind is the Msg.Kind of the message it hit; Expect reads it
	// (a notification is never answered).
	MsgKind string
	// Target is the 1-based index of the Target that chose this fault, 0
	// when it was chosen by probability or replayed from a report.
	Target int
}

// Target aims a fault at calls of a method in each session: the Nth call
// (Nth > 0; always, or with Probability when it is set), or every call
// with Probability (Nth 0).
type Target struct {
	Method string
	Nth    int // 1-based, counted per session as Msg.Nth; 0: every call
	// Fault is the fault to inject; NewPlan reads it as ParseKind does,
	// so "Bad_Params" is BadParams.
	Fault       Kind
	Probability float64 // in [0, 1]; 0 with Nth > 0 is always
}

// Plan decides, for each message, whether it gets a fault and which. A Plan
// is immutable after construction, so Decide is safe to call from any
// number of goroutines.
type Plan struct {
	seed    int64
	steps   [numClasses][]step // cumulative thresholds, in Kinds order
	targets []target
	fixed   map[faultKey]Fault // FromReport: exactly these, nothing else
}

type step struct {
	kind Kind
	idx  int    // kind's place in kinds
	upto uint64 // the roll is below this: this kind (or an earlier one)
}

type target struct {
	method string
	nth    int
	kind   Kind
	idx    int
	upto   uint64
}

type faultKey struct {
	session string
	seq     int64
}

// NewPlan returns the plan for seed: each message gets fault k with
// probability faults[k] (among the messages k can hit), and the targets —
// "the Nth call of method M", or "calls of M with probability p" — come
// first, in their order. A target with Nth > 0 and Probability 0 fires
// always. Errors name the fault or the target (1-based) and say what to fix.
func NewPlan(seed int64, faults map[Kind]float64, targets []Target) (*Plan, error) {
	if err := checkFaults(faults); err != nil {
		return nil, fmt.Errorf("chaos faults: %w", err)
	}
	p := &Plan{seed: seed}
	for c := range numClasses {
		sum := 0.0
		for _, k := range kinds {
			if faults[k] == 0 || !k.applies(c) {
				continue
			}
			sum += faults[k]
			p.steps[c] = append(p.steps[c], step{kind: k, idx: k.index(), upto: threshold(sum)})
		}
	}
	for i, t := range targets {
		pt, err := newTarget(t)
		if err != nil {
			return nil, fmt.Errorf("chaos target %d (method %q, nth %d): %w", i+1, t.Method, t.Nth, err)
		}
		p.targets = append(p.targets, pt)
	}
	return p, nil
}

func newTarget(t Target) (target, error) {
	if t.Method == "" {
		return target{}, fmt.Errorf("no method; name the method to aim at, such as tools/call")
	}
	k, err := ParseKind(string(t.Fault))
	if err != nil {
		return target{}, fmt.Errorf("fault: %w", err)
	}
	if t.Nth < 0 {
		return target{}, fmt.Errorf("nth is negative; use 1 for the first call, or 0 for every call")
	}
	if err := checkProbability(t.Probability); err != nil {
		return target{}, err
	}
	prob := t.Probability
	switch {
	case t.Nth > 0 && prob == 0:
		prob = 1
	case t.Nth == 0 && prob == 0:
		return target{}, fmt.Errorf("nth 0 (every call) with probability 0 never fires; set a probability, or nth")
	}
	return target{method: t.Method, nth: t.Nth, kind: k, idx: k.index(), upto: threshold(prob)}, nil
}

// Seed returns the plan's seed (for a plan from FromReport, the seed of
// the run it repeats).
func (p *Plan) Seed() int64 { return p.seed }

// Empty reports whether the plan can never give a fault.
func (p *Plan) Empty() bool {
	if p == nil {
		return true
	}
	if p.fixed != nil {
		return len(p.fixed) == 0
	}
	if len(p.targets) > 0 {
		return false
	}
	for _, s := range p.steps {
		if len(s) > 0 {
			return false
		}
	}
	return true
}

// Decide returns the fault message m gets, if any. It is a pure function
// of the plan (seed, probabilities, targets) and m's session, seq, method,
// kind and Nth: not of time, nor of the order of calls, nor of other
// sessions. It does not allocate. A nil Plan gives no faults.
func (p *Plan) Decide(m Msg) (Fault, bool) {
	if p == nil {
		return Fault{}, false
	}
	if p.fixed != nil {
		f, ok := p.fixed[faultKey{m.Session, m.Seq}]
		if ok {
			f.MsgKind = m.Kind
		}
		return f, ok
	}
	c := classOf(m.Kind)
	h := messageHash(p.seed, m.Session, m.Seq)
	for i := range p.targets {
		t := &p.targets[i]
		if t.method != m.Method || (t.nth != 0 && t.nth != m.Nth) || !t.kind.applies(c) {
			continue
		}
		if unit(subHash(h, uint64(i+1)*golden)) < t.upto {
			return newFault(t.kind, t.idx, h, m, i+1), true
		}
	}
	u := unit(h)
	for _, s := range p.steps[c] {
		if u < s.upto {
			return newFault(s.kind, s.idx, h, m, 0), true
		}
	}
	return Fault{}, false
}

func newFault(k Kind, idx int, h uint64, m Msg, target int) Fault {
	param := subHash(h, keyParam)
	return Fault{
		Kind: k, Seq: m.Seq, Session: m.Session,
		Detail: detailAt(idx, k, param), Param: param,
		MsgKind: m.Kind, Target: target,
	}
}

// RandomSeed returns a fresh seed from crypto/rand, for a run with no
// --seed; print it so that the run can be repeated. It is never negative.
func RandomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error (it crashes the program instead)
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}

// ParseFaults converts faults given by name (kind name → probability, as
// the config file's chaos.faults) and checks them as ParseSpec does.
func ParseFaults(m map[string]float64) (map[Kind]float64, error) {
	out := make(map[Kind]float64, len(m))
	for name, p := range m {
		k, err := ParseKind(name)
		if err != nil {
			return nil, fmt.Errorf("chaos faults: %w", err)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("chaos faults: %s is given twice (as %q and another spelling); give it once", k, name)
		}
		out[k] = p
	}
	if err := checkFaults(out); err != nil {
		return nil, fmt.Errorf("chaos faults: %w", err)
	}
	return out, nil
}
