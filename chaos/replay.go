package chaos

import (
	"fmt"
	"strconv"
	"strings"
)

// paramTag ends a report detail with the fault's Param, so that FromReport
// can give the very same mutation again.
const paramTag = " #p="

// Injected is an injected fault as a report lists it: the message it hit,
// its kind, and its detail in words. Fault.Report makes one; FromReport
// reads a list of them back (package replay translates the report's
// faults into them).
type Injected struct {
	Seq     int64
	Session string
	// Kind is the fault's kind; FromReport reads it as ParseKind does.
	Kind Kind
	// Detail says which variant ("truncated JSON"). Fault.Report ends it
	// with the fault's Param ("truncated JSON #p=9f3a…"), so that
	// FromReport gives the very same mutation again.
	Detail string
}

// Report returns f as the report lists it. Its Detail is f.Detail followed
// by the Param ("truncated JSON #p=9f3a…"), which FromReport reads back.
func (f Fault) Report() Injected {
	return Injected{
		Seq: f.Seq, Session: f.Session, Kind: f.Kind,
		Detail: f.Detail + paramTag + strconv.FormatUint(f.Param, 16),
	}
}

// FromReport returns a Plan that gives exactly faults — each at its
// (session, seq), with its kind and, when the detail ends with the Param
// that Fault.Report wrote, the same mutation — and no other fault. A
// detail without a Param gets one derived from (session, seq), so the
// replay is still deterministic (and when the detail names a variant,
// "truncated JSON", that variant). Errors name the fault (1-based) and its
// seq: an unknown kind, or two faults at one (session, seq). seed is the
// seed of the run the report is of (its chaos.seed): the plan's Seed, so
// that the replay reports the run it repeats.
func FromReport(seed int64, faults []Injected) (*Plan, error) {
	p := &Plan{seed: seed, fixed: make(map[faultKey]Fault, len(faults))}
	for i, rf := range faults {
		where := fmt.Sprintf("chaos fault %d (session %q, seq %d)", i+1, rf.Session, rf.Seq)
		k, err := ParseKind(string(rf.Kind))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		key := faultKey{rf.Session, rf.Seq}
		if _, dup := p.fixed[key]; dup {
			return nil, fmt.Errorf("%s: a second fault at the same message; a message gets at most one, remove one of them", where)
		}
		det, param, ok := splitParam(rf.Detail)
		if !ok {
			param = subHash(messageHash(0, rf.Session, rf.Seq), keyParam)
			param = matchVariant(k, det, param)
		}
		p.fixed[key] = Fault{Kind: k, Seq: rf.Seq, Session: rf.Session, Detail: det, Param: param}
	}
	return p, nil
}

// matchVariant adjusts param so that it picks the variant named d, if d
// names one of k's variants ("truncated JSON").
func matchVariant(k Kind, d string, param uint64) uint64 {
	v := variants[k]
	for i, name := range v {
		if name == d && len(v) > 1 {
			n := uint64(len(v))
			return param - param%n + uint64(i)
		}
	}
	return param
}

// splitParam splits "detail #p=hex" into detail and the Param.
func splitParam(d string) (string, uint64, bool) {
	i := strings.LastIndex(d, paramTag)
	if i < 0 {
		return d, 0, false
	}
	v, err := strconv.ParseUint(d[i+len(paramTag):], 16, 64)
	if err != nil {
		return d, 0, false
	}
	return d[:i], v, true
}
