package chaos

import (
	"slices"
	"testing"
)

func code(c int) *int { return &c }

func TestJudge(t *testing.T) {
	malformed := Fault{Kind: Malformed, Seq: 12, Session: "s1", MsgKind: "request"}
	unknown := Fault{Kind: UnknownMethod, Seq: 20, Session: "s1", MsgKind: "request"}
	drop := Fault{Kind: Drop, Seq: 25, Session: "s1", MsgKind: "request"}
	burst := Fault{Kind: Burst, Seq: 30, Session: "s1", MsgKind: "request"}
	tests := []struct {
		name      string
		obs       []Observation
		survived  bool
		breakSeq  int64 // -1: none
		wantNotes []string
	}{
		{"no faults", nil, true, -1, nil},
		{"all answered right", []Observation{
			{Fault: malformed, Answered: true, ErrorCode: code(-32700), ServerAlive: true, LaterOK: true},
			{Fault: unknown, Answered: true, ErrorCode: code(-32601), ServerAlive: true, LaterOK: true},
			{Fault: drop, ServerAlive: true, LaterOK: true},
			{Fault: burst, Answered: true, ServerAlive: true, LaterOK: true},
		}, true, -1, nil},
		{"wrong codes are tolerated", []Observation{
			{Fault: malformed, Answered: true, ErrorCode: code(-32603), ServerAlive: true, LaterOK: true},
			{Fault: unknown, Answered: true, ServerAlive: true, LaterOK: true},
			{Fault: drop, Answered: true, ServerAlive: true, LaterOK: true},
			{Fault: burst, ServerAlive: true, LaterOK: true},
		}, true, -1, []string{
			"seq 12 malformed: answered -32603, want error -32700 (tolerated: the server stayed up)",
			"seq 20 unknown-method: answered with a result, want error -32601 (tolerated: the server stayed up)",
			"seq 25 drop: answered with a result, want no answer (tolerated: the server stayed up)",
			"seq 30 burst: no answer, want the recorded answer (tolerated: the server stayed up)",
		}},
		{"crash, observations out of order", []Observation{
			{Fault: burst, ServerAlive: false},
			{Fault: unknown, Answered: false, ServerAlive: false},
			{Fault: malformed, Answered: true, ErrorCode: code(-32700), ServerAlive: true, LaterOK: true},
		}, false, 20, []string{
			"seq 20 unknown-method: the server went down (first break: the server did not survive)",
			"seq 30 burst: the server went down",
		}},
		// A message the server never got cannot have broken it; later
		// answers put down to a fault that altered what the server got
		// are noted.
		{"drop is never the break", []Observation{
			{Fault: drop, ServerAlive: true, LaterOK: false, Attributed: 2},
			{Fault: Fault{Kind: NetworkError, Seq: 27, MsgKind: "request"}, ServerAlive: false},
		}, true, -1, []string{
			"seq 25 drop: 2 later answers differed, as they may when the server never got the message (put down to the fault, not the server)",
		}},
		{"a doubled call is noted, the server survives", []Observation{
			{Fault: Fault{Kind: Duplicate, Seq: 8, MsgKind: "request"}, Answered: true, ServerAlive: true, LaterOK: true, Attributed: 1},
		}, true, -1, []string{
			"seq 8 duplicate: 1 later answer differed, as they may when the server got the message twice (put down to the fault, not the server)",
		}},
		{"alive but broken later", []Observation{
			{Fault: malformed, Answered: true, ErrorCode: code(-32700), ServerAlive: true, LaterOK: false},
		}, false, 12, []string{
			"seq 12 malformed: later messages got wrong answers (first break: the server did not survive)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge("s1", tt.obs)
			if v.Session != "s1" || v.Survived != tt.survived {
				t.Errorf("got session %q survived %v, want s1 %v", v.Session, v.Survived, tt.survived)
			}
			switch {
			case tt.breakSeq < 0 && v.FirstBreak != nil:
				t.Errorf("got first break %+v, want none", *v.FirstBreak)
			case tt.breakSeq >= 0 && (v.FirstBreak == nil || v.FirstBreak.Seq != tt.breakSeq):
				t.Errorf("got first break %+v, want seq %d", v.FirstBreak, tt.breakSeq)
			}
			if !slices.Equal(v.Notes, tt.wantNotes) {
				t.Errorf("got notes\n%q\nwant\n%q", v.Notes, tt.wantNotes)
			}
		})
	}
}

func TestJudgeKeepsInput(t *testing.T) {
	obs := []Observation{{Fault: Fault{Seq: 9}}, {Fault: Fault{Seq: 1}}}
	Judge("s", obs)
	if obs[0].Fault.Seq != 9 {
		t.Errorf("Judge reordered its input: got seq %d first, want 9", obs[0].Fault.Seq)
	}
}
