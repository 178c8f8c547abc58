package validator

import "testing"

// About 200 bytes: a tools/call answer.
const (
	benchExpected    = `{"jsonrpc":"2.0","id":17,"result":{"content":[{"type":"text","text":"Paris: 18°C, light rain, wind 12 km/h NW"}],"structuredContent":{"temp":18,"unit":"C"},"isError":false}}`
	benchSameOtherID = `{"jsonrpc":"2.0","id":100017,"result":{"content":[{"type":"text","text":"Paris: 18°C, light rain, wind 12 km/h NW"}],"structuredContent":{"temp":18,"unit":"C"},"isError":false}}`
	benchIDLast      = `{"result":{"content":[{"type":"text","text":"Paris: 18°C, light rain, wind 12 km/h NW"}],"structuredContent":{"temp":18,"unit":"C"},"isError":false},"jsonrpc":"2.0","id":17}`
	benchIDLastOther = `{"result":{"content":[{"type":"text","text":"Paris: 18°C, light rain, wind 12 km/h NW"}],"structuredContent":{"temp":18,"unit":"C"},"isError":false},"jsonrpc":"2.0","id":100017}`
	benchDifferent   = `{"jsonrpc":"2.0","id":100017,"result":{"isError":false,"structuredContent":{"unit":"C","temp":19},"content":[{"type":"text","text":"Paris: 19°C, light rain, wind 12 km/h NW"}]}}`
)

func BenchmarkCompare(b *testing.B) {
	v, err := New(WithIgnore("**.timestamp", "result.content[*].annotations"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, e, a string }{
		{"equal", benchExpected, benchSameOtherID},
		{"equal-id-last", benchIDLast, benchIDLastOther},
		{"equal-id-moved", benchExpected, benchIDLastOther},
		{"different", benchExpected, benchDifferent},
	} {
		e, a := []byte(bc.e), []byte(bc.a)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(e)))
			for b.Loop() {
				if _, err := v.Compare(e, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) {
	rules := []Rule{
		{Scope: Scope{Method: "tools/list"}, RequiredFields: []string{"result.tools[*].name"}},
		{Scope: Scope{Kind: "error"}, OnFailure: OnFailureWarn},
	}
	partial := []Rule{{Scope: Scope{Always: true}, RequiredFields: []string{"result.content[*].text", "result.isError"}}}
	for _, bc := range []struct {
		name string
		opts []Option
		a    string
	}{
		{"mode=exact/equal", []Option{WithRules(rules...)}, benchSameOtherID},
		{"mode=exact/equal-normalize-tolerance", []Option{WithRules(rules...), WithNormalize("uuid", "timestamp", "ids"), WithTolerance(0.5, 0)}, benchSameOtherID},
		{"mode=exact/different", []Option{WithRules(rules...)}, benchDifferent},
		{"mode=exact/different-normalize", []Option{WithNormalize("uuid", "timestamp", "ids")}, benchDifferent},
		{"mode=structural/equal", []Option{WithMode(Structural)}, benchSameOtherID},
		{"mode=structural/different", []Option{WithMode(Structural)}, benchDifferent},
		{"mode=partial/different", []Option{WithRules(partial...)}, benchDifferent},
		{"mode=schema/equal", []Option{WithMode(Schema)}, benchSameOtherID},
	} {
		v, err := New(bc.opts...)
		if err != nil {
			b.Fatal(err)
		}
		e, a := []byte(benchExpected), []byte(bc.a)
		s := Subject{Seq: 17, Session: "s1", Method: "tools/call", Kind: "request"}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(e)))
			for b.Loop() {
				if _, err := v.Check(s, e, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
