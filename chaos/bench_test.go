package chaos

import (
	"fmt"
	"testing"
)

func BenchmarkDecide(b *testing.B) {
	for _, tc := range []struct {
		name    string
		spec    string
		targets []Target
	}{
		{"faults=16", allSpec, nil},
		{"faults=3/targets=2", "timeout=0.05,disconnect=0.01,malformed=0.02", []Target{
			{Method: "tools/call", Nth: 3, Fault: "drop"},
			{Method: "tools/list", Fault: "timeout", Probability: 0.1},
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := mustPlan(b, 42, tc.spec, tc.targets...)
			m := Msg{Session: "0b6e2c1e-5b7a-4f0e-9b1a-2f3c4d5e6f70", Method: "tools/call", Kind: "request", Nth: 1}
			hits := 0
			b.ReportAllocs()
			for b.Loop() {
				m.Seq++
				if _, ok := p.Decide(m); ok {
					hits++
				}
			}
			b.ReportMetric(float64(hits)/float64(b.N), "faults/op")
		})
	}
}

func BenchmarkMutate(b *testing.B) {
	msg := []byte(sampleMsgs["tool call"])
	for _, k := range []Kind{Malformed, Invalid, UnknownMethod, BadParams, Cancel} {
		for v := range max(1, len(variants[k])) {
			f := Fault{Kind: k, Param: uint64(v)}
			b.Run(fmt.Sprintf("%s/%d", k, v), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Mutate(f, msg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
