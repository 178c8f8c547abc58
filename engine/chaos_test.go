package engine

import (
	"fmt"
	"testing"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

func faultPlan(t *testing.T, seed int64) *chaos.Plan {
	t.Helper()
	faults, err := chaos.ParseSpec("malformed=0.05,invalid=0.05,unknown-method=0.05,bad-params=0.05,duplicate=0.05,drop=0.03,cancel=0.03,burst=0.02,timeout=0.03,network-error=0.03,invalid-response=0.03,error-response=0.03,reorder=0.03,slow-write=0.03,disconnect=0.02")
	if err != nil {
		t.Fatal(err)
	}
	p, err := chaos.NewPlan(seed, faults, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func faultList(r report.Report) string {
	var s string
	for _, f := range r.Chaos.Faults {
		s += fmt.Sprintf("%s/%d/%s/%s;", f.Session, f.Seq, f.Kind, f.Detail)
	}
	return s
}

// TestChaosIsDeterministic: the same tape, seed and plan give the same
// faults at any speed and concurrency; another seed gives others.
func TestChaosIsDeterministic(t *testing.T) {
	path := writeTape(t, t.TempDir(), 150, 1000, nil)
	run := func(seed int64, speed scheduler.Speed, order Order, inflight int) report.Report {
		t.Helper()
		rep, err := replay(t, Config{Tape: path, Speed: speed, Order: order, MaxInflight: inflight, Chaos: faultPlan(t, seed), MaxRetries: 1})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	fast := scheduler.Speed{Mode: scheduler.Fast}
	base := run(42, fast, OrderCausal, 1000)
	if base.Chaos.Injected < 10 || base.Chaos.Seed == nil || *base.Chaos.Seed != 42 {
		t.Fatalf("injected %d faults (seed %v); want a dozen or more with seed 42", base.Chaos.Injected, base.Chaos.Seed)
	}
	want := faultList(base)
	for _, f := range base.Chaos.Faults {
		if f.Seq <= 2 { // initialize, its answer, notifications/initialized
			t.Errorf("fault %s at seq %d: the handshake must not be faulted", f.Kind, f.Seq)
		}
	}
	for _, tc := range []struct {
		name     string
		speed    scheduler.Speed
		order    Order
		inflight int
	}{
		{"again", fast, OrderCausal, 1000},
		{"10x", scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}, OrderCausal, 1000},
		{"order none, inflight 100", fast, OrderNone, 100},
		{"order none, inflight 1", fast, OrderNone, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := faultList(run(42, tc.speed, tc.order, tc.inflight)); got != want {
				t.Errorf("fault list differs:\ngot  %s\nwant %s", got, want)
			}
		})
	}
	if other := faultList(run(43, fast, OrderCausal, 1000)); other == want {
		t.Errorf("seed 43 gave the same faults as seed 42")
	}
	// The mock answers faulted messages as a good server does.
	for _, sv := range base.Chaos.Survival {
		if !sv.Survived {
			t.Errorf("session %s did not survive against the mock: %+v", sv.Session, sv)
		}
	}
}
