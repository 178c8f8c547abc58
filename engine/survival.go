package engine

import (
	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/report"
)

// survival follows each session through a chaos replay: the faults it got,
// what came back, whether the server died, whether later answers were
// still right. Owned by the validate stage.
type survival struct {
	sessions map[string]*sessionFate
	order    []string
	onFault  func(report.Fault) // Hooks.OnFault
}

type sessionFate struct {
	obs      []chaos.Observation
	dead     bool
	cause    string
	breakSeq int64 // the seq of the last fault sent before the server died; -1 none
}

func (s *survival) fate(session string) *sessionFate {
	if s.sessions == nil {
		s.sessions = make(map[string]*sessionFate)
	}
	f, ok := s.sessions[session]
	if !ok {
		f = &sessionFate{breakSeq: -1}
		s.sessions[session] = f
		s.order = append(s.order, session)
	}
	return f
}

// observe records a judged message of a chaos replay and adjusts its
// verdict: a message with an outbound fault is judged by what a good
// server does with it; one whose answer a fault spoiled on the way back is
// a warning (it exercised the error handling), not a failure of the server.
func (s *survival) observe(r *report.Result, o *outcome, c *report.Collector) {
	it := o.Req
	fate := s.fate(it.Rec.Session)
	if o.Skipped != "" && o.Sent.IsZero() && it.Fault != nil && it.Fault.Kind != chaos.Drop {
		return // never sent (its server had died): no fault was injected
	}
	if o.Lost && it.Fault == nil { // a casualty of an injected disconnect
		r.Verdict, r.Err = report.Warned, o.Err.Error()
		return
	}
	if f := it.Fault; f != nil {
		rf := reportFault(*f)
		c.AddFault(rf)
		if hook := s.onFault; hook != nil {
			hook(rf)
		}
		if !f.Kind.Outbound() {
			if bad(r.Verdict) {
				r.Verdict, r.Err = report.Warned, "injected "+string(f.Kind)+": "+r.Err
			}
			return
		}
		var answer []byte
		if o.Actual != nil {
			answer = o.Actual.Msg
		}
		chaosVerdict(r, *f, answer)
		fate.obs = append(fate.obs, chaos.Observation{Fault: *f, Answered: answer != nil, ErrorCode: errorCode(answer), ServerAlive: true, LaterOK: true})
		return
	}
	// A wrong answer after a fault: the fault just before it broke things.
	if bad(r.Verdict) && it.Rec.Seq >= 0 && len(fate.obs) > 0 && !fate.dead {
		fate.obs[len(fate.obs)-1].LaterOK = false
	}
}

// died records that the session's server died; breaker is the last fault
// sent to it before (nil: none), the one that killed it.
func (s *survival) died(session string, cause error, breaker *chaos.Fault) {
	fate := s.fate(session)
	fate.dead = true
	if cause != nil {
		fate.cause = cause.Error()
	}
	if breaker != nil {
		fate.breakSeq = breaker.Seq
	}
}

// verdicts is the report's chaos.survival: one per session that got a
// fault or died.
func (s *survival) verdicts() []report.Survival {
	var out []report.Survival
	for _, name := range s.order {
		fate := s.sessions[name]
		if len(fate.obs) == 0 && !fate.dead {
			continue
		}
		for i := range fate.obs { // down from the fault that killed it on
			fate.obs[i].ServerAlive = !fate.dead || fate.breakSeq < 0 || fate.obs[i].Fault.Seq < fate.breakSeq
		}
		v := chaos.Judge(name, fate.obs)
		sv := report.Survival{Session: name, Survived: v.Survived && !fate.dead, Faults: len(fate.obs), Notes: v.Notes}
		if v.FirstBreak != nil {
			f := reportFault(*v.FirstBreak)
			sv.BrokenBy = &f
		}
		if fate.dead && fate.breakSeq < 0 {
			sv.Survived = false
			sv.Notes = append(sv.Notes, "the server died, and not after a fault: "+fate.cause)
		} else if fate.dead && fate.cause != "" {
			sv.Notes = append(sv.Notes, "the server died: "+fate.cause)
		}
		out = append(out, sv)
	}
	return out
}

// reportFault is f as the report lists it (chaos.Fault.Report, whose
// detail carries the Param that --chaos-from reads back).
func reportFault(f chaos.Fault) report.Fault {
	in := f.Report()
	return report.Fault{Seq: in.Seq, Session: in.Session, Kind: string(in.Kind), Detail: in.Detail}
}
