package chaos

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestFromReportRoundTrip(t *testing.T) {
	msgs := tape(4, 500)
	p := mustPlan(t, 99, allSpec, Target{Method: "tools/list", Nth: 2, Fault: "cancel"})
	want := faultList(p, msgs)
	var rep []Injected
	for _, f := range want {
		rep = append(rep, f.Report())
	}
	replay, err := FromReport(p.Seed(), rep)
	if err != nil {
		t.Fatal(err)
	}
	if replay.Seed() != 99 {
		t.Errorf("Seed() = %d, want 99: the seed of the run it repeats", replay.Seed())
	}
	if replay.Empty() {
		t.Fatal("got an empty plan")
	}
	got := faultList(replay, msgs)
	if len(got) != len(want) {
		t.Fatalf("got %d faults, want %d", len(got), len(want))
	}
	for i := range want {
		w := want[i]
		w.Target = 0 // a replayed fault comes from the report, not a target
		if got[i] != w {
			t.Errorf("fault %d: got %+v, want %+v", i, got[i], w)
		}
		a, errA := Mutate(got[i], []byte(sampleMsgs["tool call"]))
		b, errB := Mutate(want[i], []byte(sampleMsgs["tool call"]))
		if (errA == nil) != (errB == nil) || !equalAll(a, b) {
			t.Errorf("fault %d (%s): the replayed mutation differs", i, w.Kind)
		}
	}
	// Nothing else: a message not in the report gets no fault.
	if f, ok := replay.Decide(Msg{Session: "other", Seq: 1, Kind: "request"}); ok {
		t.Errorf("got %+v for a message not in the report", f)
	}
}

func TestFromReportWithoutParam(t *testing.T) {
	rep := []Injected{
		{Seq: 4, Session: "s1", Kind: "malformed", Detail: "trailing comma"},
		{Seq: 5, Session: "s1", Kind: "timeout", Detail: "answer withheld"},
	}
	a, err := FromReport(0, rep)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FromReport(0, rep)
	fa, ok := a.Decide(Msg{Session: "s1", Seq: 4})
	fb, _ := b.Decide(Msg{Session: "s1", Seq: 4})
	if !ok || fa != fb {
		t.Errorf("got %+v and %+v, want the same fault twice", fa, fb)
	}
	if got := detail(fa.Kind, fa.Param); got != "trailing comma" {
		t.Errorf("got variant %q, want the one the detail names: trailing comma", got)
	}
}

func TestFromReportErrors(t *testing.T) {
	tests := []struct {
		name   string
		faults []Injected
		want   string
	}{
		{"unknown kind", []Injected{{Seq: 3, Session: "s", Kind: "boom"}}, `chaos fault 1 (session "s", seq 3): unknown fault kind "boom"`},
		{"twice", []Injected{{Seq: 3, Session: "s", Kind: "drop"}, {Seq: 3, Session: "s", Kind: "burst"}}, "chaos fault 2 (session \"s\", seq 3): a second fault"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromReport(0, tt.faults)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSplitParam(t *testing.T) {
	tests := []struct {
		in         string
		wantDetail string
		wantParam  uint64
		wantOK     bool
	}{
		{"burst of 3 #p=ff", "burst of 3", 255, true},
		{"no param", "no param", 0, false},
		{"bad #p=zz", "bad #p=zz", 0, false},
		{"a #p=1 #p=2", "a #p=1", 2, true},
	}
	for _, tt := range tests {
		d, p, ok := splitParam(tt.in)
		if d != tt.wantDetail || p != tt.wantParam || ok != tt.wantOK {
			t.Errorf("splitParam(%q): got %q %d %v, want %q %d %v", tt.in, d, p, ok, tt.wantDetail, tt.wantParam, tt.wantOK)
		}
	}
}

func TestVariantSizes(t *testing.T) {
	bursts, windows := map[int]bool{}, map[int]bool{}
	for p := range uint64(4096) {
		f := Fault{Param: mix(p)}
		bursts[f.BurstSize()] = true
		windows[f.ReorderWindow()] = true
		if c, d := f.SlowWrite(); c < 1 || c > 64 || d <= 0 {
			t.Errorf("param %d: slow-write %d bytes / %v", p, c, d)
		}
		for n := range 7 {
			order := f.Shuffle(n)
			sorted := slices.Sorted(slices.Values(order))
			if !slices.Equal(sorted, identity(n)) {
				t.Fatalf("Shuffle(%d): got %v, want a permutation", n, order)
			}
			if n >= 2 && slices.Equal(order, identity(n)) {
				t.Errorf("Shuffle(%d) param %d: got the identity, want a change", n, p)
			}
		}
	}
	if want := []int{2, 3, 4, 5, 6, 7, 8}; !slices.Equal(slices.Sorted(maps.Keys(bursts)), want) {
		t.Errorf("burst sizes: got %v, want %v", slices.Sorted(maps.Keys(bursts)), want)
	}
	if want := []int{2, 3, 4, 5}; !slices.Equal(slices.Sorted(maps.Keys(windows)), want) {
		t.Errorf("reorder windows: got %v, want %v", slices.Sorted(maps.Keys(windows)), want)
	}
	for _, tt := range []struct {
		param   uint64
		n, want int
	}{{0, 100, 50}, {1, 100, 100}, {0, 1, 1}, {0, 0, 0}} {
		if got := (Fault{Kind: Disconnect, Param: tt.param}).DisconnectAt(tt.n); got != tt.want {
			t.Errorf("DisconnectAt(%d) variant %d: got %d, want %d", tt.n, tt.param, got, tt.want)
		}
	}
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
