package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// checkChaosSessions refuses a ChaosFrom report whose faults are placed
// in sessions this replay does not have: they would never be injected,
// and the run would not repeat the one it was taken from (a report of a
// run with Sessions(3) places them in s1#1…s1#3). sessions is the
// number of virtual sessions per recorded one. A shard runs some of the
// sessions only: it is not checked.
func checkChaosSessions(path string, src tape.Source, opts []tape.Option, sessions int) error {
	rep, err := report.Read(path)
	if err != nil {
		return bad("ChaosFrom", path, err)
	}
	recorded, err := tapeSessions(src, opts)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, s := range recorded {
		if sessions <= 1 {
			have[s] = true
			continue
		}
		for k := 1; k <= sessions; k++ {
			have[s+"#"+strconv.Itoa(k)] = true
		}
	}
	var missing []string
	lost := 0
	for _, f := range rep.Chaos.Faults {
		if have[f.Session] {
			continue
		}
		lost++
		if !slices.Contains(missing, f.Session) {
			missing = append(missing, f.Session)
		}
	}
	if lost == 0 {
		return nil
	}
	slices.Sort(missing)
	names := strings.Join(missing[:min(len(missing), 8)], ", ")
	if len(missing) > 8 {
		names += fmt.Sprintf(" and %d more", len(missing)-8)
	}
	faults := "faults"
	if lost == 1 {
		faults = "fault"
	}
	return bad("ChaosFrom", path, fmt.Errorf("%d of its %d %s are placed in sessions this run does not have (%s), and would not be injected: %s",
		lost, len(rep.Chaos.Faults), faults, names, sessionsHint(missing, recorded, sessions)))
}

// sessionsHint says what to pass for the sessions missing to exist.
func sessionsHint(missing, recorded []string, sessions int) string {
	most := 0 // the highest copy number of a missing s#k of a recorded s
	for _, m := range missing {
		i := strings.LastIndexByte(m, '#')
		k, err := strconv.Atoi(m[i+1:])
		if i <= 0 || err != nil || k < 1 || !slices.Contains(recorded, m[:i]) {
			most = 0
			break
		}
		most = max(most, k)
	}
	switch {
	case most > 0:
		return fmt.Sprintf("the run it repeats had --sessions %d (or more): pass --sessions %d", most, most)
	case sessions > 1:
		return "the run it repeats had one session per recorded one: leave out --sessions"
	}
	return "is the report of another tape? replay the tape the report names"
}

// tapeSessions lists the recorded sessions of src, in tape order.
func tapeSessions(src tape.Source, opts []tape.Option) ([]string, error) {
	r, err := tape.OpenSource(src, opts...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var seen []string
	for {
		m, err := r.Next()
		if err != nil {
			break // the end, or a bad line the replay reports
		}
		if !slices.Contains(seen, m.Session) {
			seen = append(seen, m.Session)
		}
	}
	return seen, nil
}
