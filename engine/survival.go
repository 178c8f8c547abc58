package engine

import (
	"errors"
	"fmt"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/report"
)

// survival follows each session through a chaos replay: the faults it got,
// what came back, whether the server died, whether later answers were
// still right. Owned by the validate stage.
type survival struct {
	sessions map[string]*sessionFate
	order    []string
}

type sessionFate struct {
	obs []chaos.Observation
	// injected counts the faults the session got, all kinds: obs holds
	// only those the verdict weighs (outbound, and answers never sent).
	injected int
	dead     bool
	cause    string
	breakSeq int64 // the seq of the last fault sent before the server died; -1 none
	// early counts the answers put down to a fault not observed yet.
	early map[int64]int
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
// It returns the fault injected into the message, as the report lists it,
// or nil.
func (s *survival) observe(r *report.Result, o *outcome) (injected *report.Fault) {
	it := o.Req
	fate := s.fate(it.Rec.Session)
	if o.Skipped != "" && o.Sent.IsZero() && it.Fault != nil && it.Fault.Kind != chaos.Drop {
		return nil // never sent (its server had died): no fault was injected
	}
	if o.Lost && it.Fault == nil { // a casualty of an injected disconnect
		r.Verdict, r.Err = report.Warned, o.Err.Error()
		return nil
	}
	if f := it.Fault; f != nil {
		rf := reportFault(*f)
		injected = &rf
		fate.injected++
		if !f.Kind.Outbound() {
			if bad(r.Verdict) {
				r.Verdict, r.Err = report.Warned, "injected "+string(f.Kind)+": "+r.Err
			}
			if errors.Is(o.Err, session.ErrNetworkFault) { // never sent: it altered what the server got
				fate.observe(chaos.Observation{Fault: *f, ServerAlive: true, LaterOK: true})
			}
			return
		}
		var answer []byte
		if o.Actual != nil {
			answer = o.Actual.Msg
		}
		chaosVerdict(r, *f, answer)
		fate.observe(chaos.Observation{Fault: *f, Answered: answer != nil, ErrorCode: errorCode(answer), ServerAlive: true, LaterOK: true})
		return
	}
	if !bad(r.Verdict) || it.Rec.Seq < 0 || fate.dead {
		return
	}
	// An answer that differs after a fault that changed what the server
	// got (a call dropped, or made twice) is that fault's doing.
	if a := it.After; a != nil && r.Verdict == report.Failed {
		r.Verdict = report.Warned
		r.Err = fmt.Sprintf("differs after seq %d %s (chaos), which changed what the server got: put down to the fault, not the server", a.Seq, a.Kind)
		fate.attribute(a.Seq)
		return
	}
	// A wrong answer after a fault: the last fault the server got before
	// it broke things.
	for i := len(fate.obs) - 1; i >= 0; i-- {
		if fate.obs[i].Fault.Kind.Reaches() {
			fate.obs[i].LaterOK = false
			return
		}
	}
	return
}

// observe adds the observation of a fault, with the later answers already
// put down to it.
func (f *sessionFate) observe(o chaos.Observation) {
	o.Attributed += f.early[o.Fault.Seq]
	delete(f.early, o.Fault.Seq)
	f.obs = append(f.obs, o)
}

// attribute puts one more differing answer down to the fault at seq. Its
// observation may come later (a duplicate is judged when its answer comes,
// and with --order none later answers may come first).
func (f *sessionFate) attribute(seq int64) {
	for i := len(f.obs) - 1; i >= 0; i-- {
		if f.obs[i].Fault.Seq == seq {
			f.obs[i].Attributed++
			return
		}
	}
	if f.early == nil {
		f.early = make(map[int64]int)
	}
	f.early[seq]++
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
// fault or died. Each one's Faults counts every fault injected into the
// session (as chaos.injected counts them all), those acting on the
// answers too.
func (s *survival) verdicts() []report.Survival {
	var out []report.Survival
	for _, name := range s.order {
		fate := s.sessions[name]
		if fate.injected == 0 && !fate.dead {
			continue
		}
		for i := range fate.obs { // down from the fault that killed it on
			fate.obs[i].ServerAlive = !fate.dead || fate.breakSeq < 0 || fate.obs[i].Fault.Seq < fate.breakSeq
		}
		v := chaos.Judge(name, fate.obs)
		sv := report.Survival{Session: name, Survived: v.Survived && !fate.dead, Faults: fate.injected, Notes: v.Notes}
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
