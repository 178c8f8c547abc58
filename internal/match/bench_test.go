package match

import "testing"

// BenchmarkMatch measures one check of a message, by kind of condition.
func BenchmarkMatch(b *testing.B) {
	for _, spec := range []string{"12", "tools/call", `method == "tools/call" && params.arguments.message == "m7"`} {
		c, err := Parse(spec)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("kind="+c.Kind(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Match(call); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
