package engine

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
)

// maxRun bounds a run of client messages shuffled together (OrderRandom).
const maxRun = 16

// flushRun sends the session's run of client messages in a seeded random
// order: a pure function of the seed, the session and the run's first seq,
// so the same seed gives the same order at any speed.
func (x *actor) flushRun(ctx context.Context, ss *session) error {
	run := ss.run
	ss.run = nil
	for _, i := range shuffle(x.e.cfg.OrderSeed, ss.name, run) {
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
