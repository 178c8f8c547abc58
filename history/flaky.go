package history

import (
	"cmp"
	"context"
	"database/sql"
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
			k := d.Path + "\x00" + string(d.Expected) + "\x00" + string(d.Actual) + "\x00" + string(d.Kind)
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
	runsQuery := `SELECT id, started_at, tape_hash, tape_name, version FROM runs` + where + ` ORDER BY started_at DESC, id DESC`
	if q.Last > 0 {
		runsQuery += ` LIMIT ` + strconv.Itoa(q.Last)
	}
	runs, err := s.runInfos(ctx, runsQuery, args)
	if err != nil {
		return nil, fmt.Errorf("history: flaky messages in %s: %w", s.path, err)
	}
	if len(runs) == 0 {
		return nil, nil
	}
	// The messages of those runs, in the table's order (by run): no sort
	// in SQLite; each message's observations are put in run order here.
	rows, err := s.db.QueryContext(ctx, `SELECT run, session, seq, method, verdict, diffs FROM messages WHERE run IN (SELECT id FROM (`+runsQuery+`))`, args...)
	if err != nil {
		return nil, fmt.Errorf("history: flaky messages in %s: %w", s.path, err)
	}
	defer rows.Close()
	type key struct {
		tape    int // index in tapes
		session string
		seq     int64
	}
	type obs struct {
		run     int64
		verdict string
		diffs   int // index in diffTexts, -1 for none
	}
	type acc struct {
		method string
		obs    []obs
	}
	var (
		tapes     []string
		tapeIndex = map[string]int{}
		interned  = map[string]string{}
		diffIndex = map[string]int{}
		diffTexts []string
		msgs      = map[key]*acc{}
		order     []key
	)
	intern := func(b []byte) string {
		if v, ok := interned[string(b)]; ok {
			return v
		}
		v := string(b)
		interned[v] = v
		return v
	}
	var session, method, verdict, diffs sql.RawBytes
	for rows.Next() {
		var run, seq int64
		if err := rows.Scan(&run, &session, &seq, &method, &verdict, &diffs); err != nil {
			return nil, err
		}
		ri := runs[run]
		ti, ok := tapeIndex[ri.tapeHash]
		if !ok {
			ti = len(tapes)
			tapes = append(tapes, ri.tapeHash)
			tapeIndex[ri.tapeHash] = ti
		}
		k := key{ti, intern(session), seq}
		a := msgs[k]
		if a == nil {
			a = &acc{method: intern(method)}
			msgs[k] = a
			order = append(order, k)
		}
		o := obs{run: run, verdict: intern(verdict), diffs: -1}
		if diffs != nil {
			d, ok := diffIndex[string(diffs)]
			if !ok {
				d = len(diffTexts)
				diffTexts = append(diffTexts, string(diffs))
				diffIndex[diffTexts[d]] = d
			}
			o.diffs = d
		}
		a.obs = append(a.obs, o)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	decoded := make([][]report.Difference, len(diffTexts))
	for i, t := range diffTexts {
		if err := json.Unmarshal([]byte(t), &decoded[i]); err != nil {
			return nil, fmt.Errorf("history: differences of a message: %w", err)
		}
	}
	var out []Flaky
	var list []Observation
	for _, k := range order {
		a := msgs[k]
		slices.SortFunc(a.obs, func(x, y obs) int {
			if c := cmp.Compare(runs[x.run].started, runs[y.run].started); c != 0 {
				return c
			}
			return cmp.Compare(x.run, y.run)
		})
		list = list[:0]
		for _, o := range a.obs {
			ob := Observation{Run: o.run, Version: runs[o.run].version, Verdict: report.Verdict(o.verdict)}
			if o.diffs >= 0 {
				ob.Differences = decoded[o.diffs]
			}
			list = append(list, ob)
		}
		f := FlakyOf(list, rule)
		if f.Flips == 0 && len(f.Inconsistent) == 0 {
			continue
		}
		newest := runs[a.obs[len(a.obs)-1].run]
		f.TapeHash, f.TapeName, f.Session, f.Seq, f.Method = tapes[k.tape], newest.tapeName, k.session, k.seq, a.method
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b Flaky) int {
		if a.Flaky != b.Flaky {
			if a.Flaky {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.FlipRate, a.FlipRate); c != 0 {
			return c
		}
		if c := cmp.Compare(a.TapeHash, b.TapeHash); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Session, b.Session); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	return out, nil
}

// runInfo is what Flaky needs of a run.
type runInfo struct {
	started                     int64
	tapeHash, tapeName, version string
}

func (s *Store) runInfos(ctx context.Context, query string, args []any) (map[int64]runInfo, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]runInfo{}
	for rows.Next() {
		var id int64
		var r runInfo
		if err := rows.Scan(&id, &r.started, &r.tapeHash, &r.tapeName, &r.version); err != nil {
			return nil, err
		}
		out[id] = r
	}
	return out, rows.Err()
}
