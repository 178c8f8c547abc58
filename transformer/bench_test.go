package transformer

import (
	"fmt"
	"testing"
)

// benchRules is a rule list of typical size: rules aimed at other methods,
// seqs, sessions and kinds than the benchmark's message.
func benchRules(b *testing.B, extra ...RuleSpec) *Rules {
	specs := []RuleSpec{
		{Condition: Condition{Method: "tools/list"}, Action: Action{Drop: true}},
		{Condition: Condition{Seq: seq(99)}, Action: Action{AddDelay: 1}},
		{Condition: Condition{SeqRange: &SeqRange{100, 200}}, Action: Action{RegenerateID: true}},
		{Condition: Condition{Session: "s9"}, Action: Action{RemoveParam: &Remove{Path: "x"}}},
		{Condition: Condition{Kind: "notification", When: `params.x == 1`}, Action: Action{Drop: true}},
	}
	return compile(b, append(specs, extra...)...)
}

// BenchmarkApply: what the engine pays per message, with no rule
// matching and with one set_param.
func BenchmarkApply(b *testing.B) {
	b.Run("match=none/rules=5", func(b *testing.B) {
		r := benchRules(b)
		b.ReportAllocs()
		for b.Loop() {
			if o, err := r.Apply(callMsg); err != nil || o.Applied != nil {
				b.Fatal(o, err)
			}
		}
	})
	b.Run("match=set_param/rules=6", func(b *testing.B) {
		r := benchRules(b, RuleSpec{Condition: Condition{Method: "tools/call"},
			Action: Action{SetParam: &SetValue{Path: "$.params.arguments.token", Value: "${env.AUTH_TOKEN}"}}})
		b.ReportAllocs()
		for b.Loop() {
			if o, err := r.Apply(callMsg); err != nil || o.Out == nil {
				b.Fatal(o, err)
			}
		}
	})
	b.Run("match=when/rules=6", func(b *testing.B) {
		r := benchRules(b, RuleSpec{Condition: Condition{When: `params.arguments.city == "Paris"`},
			Action: Action{AddDelay: 1}})
		b.ReportAllocs()
		for b.Loop() {
			if o, err := r.Apply(callMsg); err != nil || o.Delay == 0 {
				b.Fatal(o, err)
			}
		}
	})
}

// BenchmarkSetPath: one member set in a message of growing size.
func BenchmarkSetPath(b *testing.B) {
	p := MustParsePath("$.params.arguments.city")
	for _, n := range []int{10, 1000} {
		raw := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","list":[`)
		for i := range n {
			if i > 0 {
				raw = append(raw, ',')
			}
			raw = fmt.Appendf(raw, `{"i":%d,"s":"value %d"}`, i, i)
		}
		raw = append(raw, `],"arguments":{"city":"Paris"}}}`...)
		b.Run(fmt.Sprintf("bytes=%d", len(raw)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := SetPath(raw, p, []byte(`"Lyon"`)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
