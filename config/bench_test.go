package config

import (
	"strings"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	var many strings.Builder
	many.WriteString("transformations:\n")
	for range 1000 {
		many.WriteString("  - condition: {method_equals: tools/call, seq_range: [1, 9]}\n    action:\n      set_param: {path: $.params.arguments.token, value: \"${env.T}\"}\n")
	}
	for _, bc := range []struct {
		name string
		in   string
	}{
		{"example", Example()},
		{"rules=1000", many.String()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.in)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse("bench.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
