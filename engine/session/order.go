package session

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
)

// Order says what a client message waits for before it is sent.
type Order string

// The orders of DESIGN.md.
const (
	// OrderCausal: a message waits for the answers that, in the recording,
	// arrived before it was sent (same session). The default.
	OrderCausal Order = "causal"
	// OrderSequential: every request waits for its own answer before the
	// next message is sent.
	OrderSequential Order = "sequential"
	// OrderNone: messages go out on schedule, answers are paired as they
	// come (bounded by MaxInflight).
	OrderNone Order = "none"
	// OrderRandom: causal, and each run of client messages with no recorded
	// answer between them goes out in a seeded random order (OrderSeed);
	// the handshake (mcp.IsHandshake) is in no run: it goes out as recorded.
	OrderRandom Order = "random"
)

// The order rule, as what a session waits for before its next message:

// waitsForOwn: every request's own answer, from when it is sent.
func (o Order) waitsForOwn() bool { return o == OrderSequential }

// waitsForRecorded: the live answer of each request whose recorded
// answer came before the next message (from when the recorded one is
// read).
func (o Order) waitsForRecorded() bool { return o == OrderCausal || o == OrderRandom }

// waitsForServer: the live server's request that the client answered in
// the recording before the next message.
func (o Order) waitsForServer() bool { return o.holds() }

// holds: the rule holds a session at all (every rule but OrderNone).
func (o Order) holds() bool { return o != OrderNone }

// maxRun bounds a run of client messages shuffled together (OrderRandom).
const maxRun = 16

// flushRun sends the session's run of client messages in a seeded random
// order: a pure function of the seed, the session and the run's first seq,
// so the same seed gives the same order at any speed.
func (x *Actor) flushRun(ctx context.Context, ss *session) error {
	run := ss.run
	ss.run = nil
	for _, i := range shuffle(x.env.OrderSeed, ss.name, run) {
		if err := x.take(ctx, ss, run[i]); err != nil {
			return err
		}
	}
	return nil
}

// shuffle is the order in which a run goes out.
func shuffle(seed int64, session string, run []*Item) []int {
	if len(run) < 2 {
		return make([]int, len(run))
	}
	h := fnv.New64a()
	h.Write([]byte(session))
	r := rand.New(rand.NewPCG(uint64(seed), h.Sum64()^uint64(run[0].Rec.Seq)))
	return r.Perm(len(run))
}
