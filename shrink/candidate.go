package shrink

import (
	"bytes"
	"slices"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// Candidate is one reduction of a tape and its faults: the units kept
// (indexes into Tape.Units, in order), the faults kept (indexes into the
// faults being shrunk) and the client messages rewritten by
// simplification (seq → the new bytes). A Candidate is a value: the
// shrinker makes new ones and never changes one it has tried.
type Candidate struct {
	Units  []int
	Faults []int
	Edits  map[int64][]byte
}

// withUnits returns c with its units set to units.
func (c Candidate) withUnits(units []int) Candidate {
	c.Units = units
	return c
}

// withFaults returns c with its faults set to faults.
func (c Candidate) withFaults(faults []int) Candidate {
	c.Faults = faults
	return c
}

// withEdit returns c with the message at seq rewritten to b.
func (c Candidate) withEdit(seq int64, b []byte) Candidate {
	edits := make(map[int64][]byte, len(c.Edits)+1)
	for k, v := range c.Edits {
		edits[k] = v
	}
	edits[seq] = b
	c.Edits = edits
	return c
}

// Messages are the candidate's messages, in tape order, edits applied;
// each keeps its recorded seq, so that faults (placed by session and seq)
// and failures still name the same messages.
func (t *Tape) messagesOf(c Candidate) []tape.Message {
	var seqs []int64
	for _, u := range c.Units {
		seqs = append(seqs, t.Units[u].Seqs...)
	}
	slices.Sort(seqs)
	out := make([]tape.Message, 0, len(seqs))
	for _, s := range seqs {
		m := t.Messages[t.bySeq[s]]
		if b, ok := c.Edits[s]; ok {
			m.Msg = b
		}
		out = append(out, m)
	}
	return out
}

// Encode writes the candidate as a native tape.
func (t *Tape) Encode(c Candidate) ([]byte, error) {
	var buf bytes.Buffer
	w, err := tape.NewWriter(&buf, t.Header)
	if err != nil {
		return nil, err
	}
	for _, m := range t.messagesOf(c) {
		if err := w.Write(m); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// faultsOf are the candidate's faults that fall on one of its messages:
// a fault on a message no longer on the tape never fires, and is left out.
func (t *Tape) faultsOf(c Candidate, all []report.Fault) []report.Fault {
	kept := map[int64]bool{}
	for _, u := range c.Units {
		for _, s := range t.Units[u].Seqs {
			kept[s] = true
		}
	}
	var out []report.Fault
	for _, i := range c.Faults {
		if f := all[i]; kept[f.Seq] {
			out = append(out, f)
		}
	}
	return out
}

// sessionsOf are the sessions of the candidate's units, in order of first
// appearance.
func (t *Tape) sessionsOf(units []int) []string {
	var out []string
	for _, u := range units {
		if s := t.Units[u].Session; !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// size is a candidate's size for the report: messages, bytes of them,
// sessions and faults.
func (t *Tape) size(c Candidate, all []report.Fault) Size {
	var s Size
	for _, m := range t.messagesOf(c) {
		s.Messages++
		s.Bytes += int64(len(m.Msg))
		if m.Dir == tape.C2S {
			s.ClientMessages++
		}
	}
	s.Units = len(c.Units)
	s.Sessions = len(t.sessionsOf(c.Units))
	s.Faults = len(t.faultsOf(c, all))
	return s
}

// jsonscanMember sets *v to the raw value of member key of the object
// doc, or leaves it nil.
func jsonscanMember(doc []byte, key string, v *[]byte) error {
	return jsonscan.Members(doc, func(m jsonscan.Member) bool {
		if !m.KeyEscaped && string(m.Key) == key {
			*v = doc[m.Start:m.End]
			return false
		}
		return true
	})
}
