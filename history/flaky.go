package history

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/replayctl/replayctl/report"
)

// Rule is when a message counts as flaky: its pass rate lies strictly
// between Low and High over at least MinRuns runs that judged it
// (MCProbe's rule: (0.2, 0.8) over 5 runs, [DefaultRule]).
type Rule struct {
	MinRuns   int
	Low, High float64
}

// DefaultRule is MCProbe's rule.
var DefaultRule = Rule{MinRuns: 5, Low: 0.2, High: 0.8}

// Observation is one run's verdict on one message.
type Observation struct {
	Run         int64
	Version     string
	Verdict     report.Verdict
	Differences []report.Difference
}

// passed reports whether o's verdict is a pass (true) or a failure
// (false); ok is false for a verdict that is neither (skipped).
func (o Observation) passed() (passed, ok bool) {
	switch o.Verdict {
	case report.Passed, report.Warned:
		return true, true
	case report.Failed, report.Error, report.Timeout:
		return false, true
	}
	return false, false
}

// SeenDifference is a difference seen in failing runs, and in how many.
type SeenDifference struct {
	report.Difference
	Runs int
}

// Flaky is what the runs say about one message's verdicts.
type Flaky struct {
	TapeHash, TapeName string
	Session            string
	Seq                int64
	Method             string
	Runs               int // runs that passed or failed it
	Passes, Fails      int
	PassRate           float64 // Passes / Runs
	Flips              int     // verdict changes from one run to the next
	FlipRate           float64 // Flips / (Runs - 1)
	// Flaky is the rule's verdict ([Rule]).
	Flaky bool
	// Inconsistent lists the versions under test that both passed and
	// failed it: the standard "flaky on the same commit".
	Inconsistent []string
	// Differences are those seen in its failing runs, most seen first:
	// each one's Expected is what the passing runs answered, its Actual
	// what the failing ones did.
	Differences []SeenDifference
	FirstFail   int64 // run numbers
	LastFail    int64
}

// FlakyOf judges one message's observations (oldest first) by rule.
func FlakyOf(obs []Observation, rule Rule) Flaky {
	var f Flaky
	var last, seen bool
	passVersions, failVersions := map[string]bool{}, map[string]bool{}
	diffs := map[string]*SeenDifference{}
	var order []string
	for _, o := range obs {
		p, ok := o.passed()
		if !ok {
			continue
		}
		f.Runs++
		if seen && p != last {
			f.Flips++
		}
		last, seen = p, true
		if p {
			f.Passes++
			passVersions[o.Version] = true
			continue
		}
		f.Fails++
		failVersions[o.Version] = true
		if f.FirstFail == 0 {
			f.FirstFail = o.Run
		}
		f.LastFail = o.Run
		for _, d := range o.Differences {
			k := d.Path + "\x00" + string(d.Expected) + "\x00" + string(d.Actual) + "\x00" + d.Kind
			if diffs[k] == nil {
				diffs[k] = &SeenDifference{Difference: d}
				order = append(order, k)
			}
			diffs[k].Runs++
		}
	}
	if f.Runs > 0 {
		f.PassRate = float64(f.Passes) / float64(f.Runs)
	}
	if f.Runs > 1 {
		f.FlipRate = float64(f.Flips) / float64(f.Runs-1)
	}
	f.Flaky = f.Runs >= rule.MinRuns && f.PassRate > rule.Low && f.PassRate < rule.High
	for v := range passVersions {
		if v != "" && failVersions[v] {
			f.Inconsistent = append(f.Inconsistent, v)
		}
	}
	slices.Sort(f.Inconsistent)
	for _, k := range order {
		f.Differences = append(f.Differences, *diffs[k])
	}
	slices.SortStableFunc(f.Differences, func(a, b SeenDifference) int { return cmp.Compare(b.Runs, a.Runs) })
	return f
}

// Flaky judges every message of the runs q selects and returns those
// whose verdict flipped at least once or that passed and failed on one
// version: the rule's flaky ones first, then by flip rate.
func (s *Store) Flaky(ctx context.Context, q Query, rule Rule) ([]Flaky, error) {
	where, args := q.where()
	runs := `SELECT id FROM runs` + where + ` ORDER BY started_at DESC, id DESC`
	if q.Last > 0 {
		runs += ` LIMIT ` + strconv.Itoa(q.Last)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT r.tape_hash, r.tape_name, r.id, r.version, m.session, m.seq, m.method, m.verdict, m.diffs
		FROM messages m JOIN runs r ON r.id = m.run
		WHERE m.run IN (`+runs+`)
		ORDER BY r.tape_hash, m.session, m.seq, r.started_at, r.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("history: flaky messages in %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Flaky
	var cur Flaky
	var obs []Observation
	flush := func() {
		if len(obs) == 0 {
			return
		}
		f := FlakyOf(obs, rule)
		f.TapeHash, f.TapeName, f.Session, f.Seq, f.Method = cur.TapeHash, cur.TapeName, cur.Session, cur.Seq, cur.Method
		if f.Flips > 0 || len(f.Inconsistent) > 0 {
			out = append(out, f)
		}
		obs = obs[:0]
	}
	for rows.Next() {
		var k Flaky
		var o Observation
		var verdict string
		var diffs *string
		if err := rows.Scan(&k.TapeHash, &k.TapeName, &o.Run, &o.Version, &k.Session, &k.Seq, &k.Method, &verdict, &diffs); err != nil {
			return nil, err
		}
		if k.TapeHash != cur.TapeHash || k.Session != cur.Session || k.Seq != cur.Seq {
			flush()
			cur = k
		}
		if k.TapeName != "" {
			cur.TapeName = k.TapeName // the newest name
		}
		o.Verdict = report.Verdict(verdict)
		if diffs != nil {
			if err := json.Unmarshal([]byte(*diffs), &o.Differences); err != nil {
				return nil, fmt.Errorf("history: run %d message %s/%d: differences: %w", o.Run, k.Session, k.Seq, err)
			}
		}
		obs = append(obs, o)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	flush()
	slices.SortStableFunc(out, func(a, b Flaky) int {
		if a.Flaky != b.Flaky {
			if a.Flaky {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.FlipRate, a.FlipRate)
	})
	return out, nil
}
