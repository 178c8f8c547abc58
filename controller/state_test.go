package controller

import (
	"testing"

	"github.com/replayctl/replayctl/report"
)

func TestDecideGate(t *testing.T) {
	tests := []struct {
		name    string
		v       gateView
		epoch   uint64
		checked bool
		want    gateAction
	}{
		{"running: check breakpoints", gateView{State: Running}, 0, false, actCheck},
		{"running, already checked", gateView{State: Running}, 0, true, actPass},
		{"paused holds", gateView{State: Paused}, 0, false, actHold},
		{"idle holds", gateView{State: Idle}, 0, false, actHold},
		{"ended passes", gateView{State: Ended}, 0, false, actCheck},
		{"seeking holds", gateView{State: Running, Seeking: true}, 3, false, actHold},
		{"stale before all", gateView{State: Running, MinEpoch: 2}, 1, false, actStale},
		{"stale while paused", gateView{State: Paused, MinEpoch: 2}, 1, true, actStale},
		{"current epoch", gateView{State: Running, MinEpoch: 2}, 2, false, actCheck},
		{"stopped first", gateView{State: Stopped, MinEpoch: 2}, 1, false, actStop},
		{"lockstep waits", gateView{State: Running, Lockstep: true, Unjudged: 1}, 0, false, actHold},
		{"lockstep, all judged", gateView{State: Running, Lockstep: true}, 0, false, actCheck},
		{"no lockstep, unjudged", gateView{State: Running, Unjudged: 5}, 0, true, actPass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideGate(tt.v, tt.epoch, tt.checked); got != tt.want {
				t.Errorf("decideGate(%+v, %d, %v): got %v, want %v", tt.v, tt.epoch, tt.checked, got, tt.want)
			}
		})
	}
}

func TestPausesOn(t *testing.T) {
	tests := []struct {
		policy OnError
		v      report.Verdict
		want   bool
	}{
		{OnErrorPause, report.Failed, true},
		{OnErrorPause, report.Error, true},
		{OnErrorPause, report.Timeout, true},
		{OnErrorPause, report.Passed, false},
		{OnErrorPause, report.Warned, false},
		{OnErrorPause, report.Skipped, false},
		{OnErrorPause, report.Sent, false},
		{OnErrorContinue, report.Failed, false},
		{OnErrorContinue, report.Timeout, false},
	}
	for _, tt := range tests {
		t.Run(tt.policy.String()+"/"+string(tt.v), func(t *testing.T) {
			if got := pausesOn(tt.policy, report.Result{Verdict: tt.v}); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseOnError(t *testing.T) {
	tests := []struct {
		in      string
		want    OnError
		wantErr bool
	}{
		{"pause", OnErrorPause, false},
		{"", OnErrorPause, false},
		{"continue", OnErrorContinue, false},
		{"stop", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseOnError(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
			if err == nil {
				if back, _ := ParseOnError(got.String()); back != got {
					t.Errorf("round trip: got %v, want %v", back, got)
				}
			}
		})
	}
}

func TestStepDone(t *testing.T) {
	tests := []struct {
		budget, outstanding int
		want                bool
	}{
		{0, 0, true}, {1, 0, false}, {0, 1, false}, {2, 3, false},
	}
	for _, tt := range tests {
		if got := stepDone(tt.budget, tt.outstanding); got != tt.want {
			t.Errorf("stepDone(%d, %d): got %v, want %v", tt.budget, tt.outstanding, got, tt.want)
		}
	}
}

func TestSeqCount(t *testing.T) {
	var s seqCount
	if s.remove(1) {
		t.Fatal("remove from empty: got true, want false")
	}
	s.add(1)
	s.add(1)
	s.add(2)
	if !s.remove(1) || !s.remove(1) || s.remove(1) {
		t.Errorf("a seq added twice: want two removals, not three")
	}
	if s.n != 1 {
		t.Errorf("got n=%d, want 1", s.n)
	}
	s.reset()
	if s.n != 0 || s.remove(2) {
		t.Errorf("after reset: got n=%d, want 0 and nothing to remove", s.n)
	}
}
