package shrink

import (
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// maxRounds bounds the rounds of the search; a round that changes
// nothing ends it earlier (and shows the result 1-minimal).
const maxRounds = 6

// search runs the phases round after round until a round changes
// nothing. It returns the best candidate found, with the error that
// stopped it early, if any.
func (sh *shrinker) search(ctx context.Context, c Candidate) (Candidate, error) {
	phases := []struct {
		name string
		run  func(context.Context, Candidate) (Candidate, error)
	}{
		{"sessions", sh.sessions},
		{"chunks", sh.chunks},
		{"units from the back", sh.fromBack},
		{"faults", sh.faults},
		{"parameters", sh.parameters},
	}
	for round := 1; round <= maxRounds; round++ {
		before := fingerprint(c)
		for _, p := range phases {
			next, err := p.run(ctx, c)
			if size := sh.t.size(next, sh.s.faults); fingerprint(next) != fingerprint(c) {
				sh.s.logger.Info().Int("round", round).Str("phase", p.name).Int("units", size.Units).Int("messages", size.Messages).Int("faults", size.Faults).Int64("runs", sh.runs.Load()).Msg("smaller")
				for _, f := range sh.s.onStep {
					f(Step{Round: round, Phase: p.name, Size: size, Runs: int(sh.runs.Load())})
				}
			}
			c = next
			if err != nil {
				return c, err
			}
		}
		if fingerprint(c) == before {
			break
		}
	}
	return c, nil
}

// fingerprint tells candidates apart for the search's fixpoint.
func fingerprint(c Candidate) string {
	var b []byte
	for _, u := range c.Units {
		b = strconv.AppendInt(append(b, ','), int64(u), 10)
	}
	b = append(b, '|')
	for _, f := range c.Faults {
		b = strconv.AppendInt(append(b, ','), int64(f), 10)
	}
	b = append(b, '|')
	keys := slices.Sorted(maps.Keys(c.Edits))
	for _, k := range keys {
		b = strconv.AppendInt(append(b, ','), k, 10)
		b = append(b, c.Edits[k]...)
	}
	return string(b)
}

// sessions drops whole sessions: first all but the failing one, then by
// delta debugging.
func (sh *shrinker) sessions(ctx context.Context, c Candidate) (Candidate, error) {
	names := sh.t.sessionsOf(c.Units)
	if len(names) < 2 {
		return c, nil
	}
	keep := func(set []int) Candidate {
		var units []int
		for _, u := range c.Units {
			if slices.ContainsFunc(set, func(i int) bool { return names[i] == sh.t.Units[u].Session }) {
				units = append(units, u)
			}
		}
		return c.withUnits(units)
	}
	if at := slices.Index(names, sh.target.Session); at >= 0 {
		alone := keep([]int{at})
		ok, err := sh.fails(ctx, alone)
		if err != nil || ok {
			if ok {
				c = alone
			}
			return c, err
		}
	}
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	set, err := sh.ddmin(ctx, idx, keep, false)
	return keep(set), err
}

// movable are the candidate's units the search may drop: all but the
// handshakes.
func (sh *shrinker) movable(c Candidate) (pinned, movable []int) {
	for _, u := range c.Units {
		if sh.t.Units[u].Handshake {
			pinned = append(pinned, u)
		} else {
			movable = append(movable, u)
		}
	}
	return pinned, movable
}

// withMovable is c with its handshakes and the movable units set.
func withMovable(c Candidate, pinned, set []int) Candidate {
	units := slices.Concat(pinned, set)
	slices.Sort(units)
	return c.withUnits(units)
}

// chunks drops chunks of units by delta debugging.
func (sh *shrinker) chunks(ctx context.Context, c Candidate) (Candidate, error) {
	pinned, movable := sh.movable(c)
	mk := func(set []int) Candidate { return withMovable(c, pinned, set) }
	set, err := sh.ddmin(ctx, movable, mk, true)
	return mk(set), err
}

// fromBack tries to drop each unit alone, the last first.
func (sh *shrinker) fromBack(ctx context.Context, c Candidate) (Candidate, error) {
	pinned, movable := sh.movable(c)
	mk := func(set []int) Candidate { return withMovable(c, pinned, set) }
	set, err := sh.oneByOne(ctx, movable, mk)
	return mk(set), err
}

// faults drops faults: those on messages no longer on the tape at once,
// then by delta debugging, then one by one from the back.
func (sh *shrinker) faults(ctx context.Context, c Candidate) (Candidate, error) {
	var live []int
	kept := sh.t.faultsOf(c, sh.s.faults)
	for _, f := range c.Faults {
		if slices.Contains(kept, sh.s.faults[f]) {
			live = append(live, f)
		}
	}
	c = c.withFaults(live)
	if len(live) == 0 {
		return c, nil
	}
	set, err := sh.ddmin(ctx, live, c.withFaults, true)
	if err != nil {
		return c.withFaults(set), err
	}
	set, err = sh.oneByOne(ctx, set, c.withFaults)
	return c.withFaults(set), err
}

// parameters simplifies the client requests and notifications left, one
// step at a time while the failure holds (see Simplifications).
func (sh *shrinker) parameters(ctx context.Context, c Candidate) (Candidate, error) {
	if !sh.s.simplify {
		return c, nil
	}
	for _, u := range c.Units {
		unit := sh.t.Units[u]
		if unit.Handshake {
			continue
		}
		for _, seq := range unit.Seqs {
			m := sh.t.Messages[sh.t.bySeq[seq]]
			if m.Dir != tape.C2S {
				continue
			}
			for {
				raw := m.Msg
				if b, ok := c.Edits[seq]; ok {
					raw = b
				}
				if rpc, err := jsonrpc.Parse(raw); err != nil || rpc.Kind == jsonrpc.KindResponse || rpc.Kind == jsonrpc.KindError {
					break
				}
				simpler := Simplifications(raw)
				cands := make([]Candidate, len(simpler))
				for i, b := range simpler {
					cands[i] = c.withEdit(seq, b)
				}
				i, err := sh.firstFailing(ctx, cands)
				if err != nil {
					return c, err
				}
				if i < 0 {
					break
				}
				c = cands[i]
			}
		}
	}
	return c, nil
}

// ddmin is delta debugging (Zeller and Hildebrandt, 2002) reducing to
// complements: it splits items into n chunks and keeps the first
// complement (all but one chunk) that keeps the failure, then n−1
// chunks; when none does, 2n chunks, until chunks of one. emptyFirst
// tries the empty set first (no faults, no units but the handshakes):
// one run that often settles a whole phase. It returns the smallest set
// found, and the error that stopped it.
func (sh *shrinker) ddmin(ctx context.Context, items []int, mk func([]int) Candidate, emptyFirst bool) ([]int, error) {
	if emptyFirst && len(items) > 0 {
		ok, err := sh.fails(ctx, mk(nil))
		if err != nil || ok {
			if ok {
				items = nil
			}
			return items, err
		}
	}
	n := 2
	for len(items) >= 2 {
		n = min(n, len(items))
		chunks := split(items, n)
		cands := make([]Candidate, len(chunks))
		rests := make([][]int, len(chunks))
		for i := range chunks {
			rests[i] = complement(chunks, i)
			cands[i] = mk(rests[i])
		}
		i, err := sh.firstFailing(ctx, cands)
		if err != nil {
			return items, err
		}
		if i >= 0 {
			items = rests[i]
			n = max(n-1, 2)
			continue
		}
		if n >= len(items) {
			break
		}
		n = min(2*n, len(items))
	}
	return items, nil
}

// oneByOne tries to drop each item alone, the last first, Parallel at a
// time; it returns what is left, each item shown needed.
func (sh *shrinker) oneByOne(ctx context.Context, items []int, mk func([]int) Candidate) ([]int, error) {
	i := len(items) - 1
	for i >= 0 {
		var at []int
		var cands []Candidate
		for j := i; j >= 0 && len(at) < sh.s.parallel; j-- {
			at = append(at, j)
			cands = append(cands, mk(slices.Delete(slices.Clone(items), j, j+1)))
		}
		k, err := sh.firstFailing(ctx, cands)
		if err != nil {
			return items, err
		}
		if k < 0 {
			i -= len(at)
			continue
		}
		items = slices.Delete(slices.Clone(items), at[k], at[k]+1)
		i = at[k] - 1
	}
	return items, nil
}

// split cuts items into n chunks of nearly equal size, in order.
func split(items []int, n int) [][]int {
	out := make([][]int, 0, n)
	for i := range n {
		lo, hi := i*len(items)/n, (i+1)*len(items)/n
		out = append(out, items[lo:hi])
	}
	return out
}

// complement is every chunk but chunk i, in order.
func complement(chunks [][]int, i int) []int {
	var out []int
	for j, c := range chunks {
		if j != i {
			out = append(out, c...)
		}
	}
	return out
}
