package report

import (
	"fmt"
	"strings"

	"github.com/replayctl/replayctl/internal/english"
)

// Shard is the share of a run one replay was (replayctl run --shard
// INDEX/COUNT): of the run's sessions in the order they first appear,
// those whose place mod Count is Index.
type Shard struct {
	Index int `json:"index"` // from 0
	Count int `json:"count"`
	// Empty marks a shard that had no session to replay: it did nothing,
	// and passes.
	Empty bool `json:"empty,omitempty"`
}

// MergedShards is what a merge of shards covered: Merged the indexes of
// the shards merged, Missing those of Count that were not. A merge with
// shards missing is not the run's verdict and does not pass
// ([Report.Incomplete]), unless Partial: [AllowPartial] accepted it, and
// it is judged on the shards it has.
type MergedShards struct {
	Count   int   `json:"count"`
	Merged  []int `json:"merged"`
	Missing []int `json:"missing,omitempty"`
	Partial bool  `json:"partial,omitempty"`
}

// Incomplete says which shards of the run a merge lacks ("shards 1/4,
// 3/4 missing"), or "" when it has them all, is no merge of shards, or
// its partial merge was accepted ([AllowPartial]). Such a report does
// not pass: its figures are not the run's.
func (r Report) Incomplete() string {
	m := r.Summary.Shards
	if m == nil || len(m.Missing) == 0 || m.Partial {
		return ""
	}
	missing := make([]string, len(m.Missing))
	for i, k := range m.Missing {
		missing[i] = fmt.Sprintf("%d/%d", k, m.Count)
	}
	return fmt.Sprintf("%s %s missing", english.Plural(int64(len(missing)), "shard"), strings.Join(missing, ", "))
}

// mergedShards checks that the reports are shards of one run, each once,
// or none a shard: it refuses shards of different counts, a shard twice,
// and shards with whole runs. It returns what they cover (nil for no
// shard) and a warning naming the missing shards ("shards 1/4, 3/4
// missing"), "" when none is.
func mergedShards(reports []*Report) (*MergedShards, string, error) {
	first := reports[0].Summary.Shard
	seen := map[int]int{} // shard index → report
	for i, r := range reports {
		s := r.Summary.Shard
		switch {
		case (s == nil) != (first == nil):
			whole, shard := i, 0
			if s != nil {
				whole, shard = 0, i
			}
			return nil, "", errorf(ErrBadReport, "%s is a whole run and %s shard %d/%d; merge the shards of one run, or whole runs, not both",
				reports[whole].file(whole), reports[shard].file(shard), reports[shard].Summary.Shard.Index, reports[shard].Summary.Shard.Count)
		case s == nil:
			continue
		case s.Count != first.Count:
			return nil, "", errorf(ErrBadReport, "%s is shard %d/%d and %s shard %d/%d: shards of different counts split the sessions differently; merge the shards of one --shard count",
				reports[0].file(0), first.Index, first.Count, r.file(i), s.Index, s.Count)
		case s.Index < 0 || s.Index >= s.Count:
			return nil, "", errorf(ErrBadReport, "%s: summary.shard %d/%d: the index must be from 0 to %d", r.file(i), s.Index, s.Count, s.Count-1)
		}
		if j, dup := seen[s.Index]; dup {
			return nil, "", errorf(ErrBadReport, "%s and %s are both shard %d/%d: merge each shard once", reports[j].file(j), r.file(i), s.Index, s.Count)
		}
		seen[s.Index] = i
	}
	if first == nil {
		return nil, "", nil
	}
	m := &MergedShards{Count: first.Count, Merged: []int{}}
	var missing []string
	for k := range first.Count {
		if _, ok := seen[k]; ok {
			m.Merged = append(m.Merged, k)
		} else {
			m.Missing = append(m.Missing, k)
			missing = append(missing, fmt.Sprintf("%d/%d", k, first.Count))
		}
	}
	if len(missing) == 0 {
		return m, "", nil
	}
	word := "shard"
	if len(missing) > 1 {
		word = "shards"
	}
	return m, fmt.Sprintf("%s %s missing: the merged report covers %d of %d shards, not the whole run", word, strings.Join(missing, ", "), len(m.Merged), first.Count), nil
}
