package chaos

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"", "timeout=0.05,disconnect=0.01,malformed=0.02", "drop=1", "x=", "=0.1", "drop=0.5,drop=0.5", "bad_params=1e-3", "drop=NaN", "drop=Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSpec(s)
		if err != nil {
			if got != nil {
				t.Errorf("got %v with error %v, want nil", got, err)
			}
			return
		}
		sum := 0.0
		for k, p := range got {
			if !k.valid() || math.IsNaN(p) || p < 0 || p > 1 {
				t.Errorf("got %s=%v from %q", k, p, s)
			}
			sum += p
		}
		if sum > 1+sumSlack {
			t.Errorf("got a sum of %v from %q", sum, s)
		}
		if _, err := NewPlan(1, got, nil); err != nil {
			t.Errorf("NewPlan refused ParseSpec(%q): %v", s, err)
		}
	})
}

// FuzzMutate checks that Mutate never panics, fails only with
// ErrNotApplicable, and that for a valid request or notification each
// kind's stated property holds (checkMutation).
func FuzzMutate(f *testing.F) {
	for _, m := range sampleMsgs {
		f.Add([]byte(m), uint8(0), uint64(0), false)
		f.Add([]byte(m), uint8(3), uint64(0x1234567), true)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), uint8(2), uint64(1), false)
	f.Add([]byte(`not json`), uint8(1), uint64(2), true)
	f.Fuzz(func(t *testing.T, msg []byte, kind uint8, param uint64, withPrev bool) {
		k := kinds[int(kind)%len(kinds)]
		fault := Fault{Kind: k, Param: param, Seq: 1, Session: "s"}
		var prev []byte
		if withPrev {
			prev = []byte(`"prev"`)
		}
		out, err := MutateWithPrev(fault, msg, prev)
		if err != nil {
			if !errors.Is(err, ErrNotApplicable) {
				t.Fatalf("%s: got error %v, want ErrNotApplicable", k, err)
			}
			return
		}
		if k == Malformed {
			if len(out) != 1 || json.Valid(out[0]) {
				t.Fatalf("malformed: got %q, want one line that is not JSON", out)
			}
		}
		m, perr := jsonrpc.ParseStrict(msg)
		if perr != nil || (m.Kind != jsonrpc.KindRequest && m.Kind != jsonrpc.KindNotification) {
			return
		}
		if !applicable(k, m) {
			t.Fatalf("%s on a %s: got %q, want ErrNotApplicable", k, m.Kind, out)
		}
		if err := checkMutation(fault, msg, prev, out); err != nil {
			t.Fatalf("%s (%s) of %q: %v", k, detail(k, param), msg, err)
		}
		if _, err := MutateAnswer(fault, msg); err != nil && !errors.Is(err, ErrNotApplicable) {
			t.Fatalf("MutateAnswer %s: got %v", k, err)
		}
	})
}
