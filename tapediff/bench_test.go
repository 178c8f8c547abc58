package tapediff

import (
	"fmt"
	"testing"
)

// benchSide is a tape of n messages: a tools/list, then tools/call
// requests and their answers; every 100th answer of variant 1 differs
// from variant 0's (an answer_changed each), and times are volatile.
func benchSide(n, variant int) Side {
	xs := []exch{toolsList(echoTool, addTool)}
	for i := 1; len(xs)*2 < n; i++ {
		text := fmt.Sprintf("Echo: message %d", i)
		if variant == 1 && i%100 == 0 {
			text = "changed"
		}
		xs = append(xs, exch{"tools/call",
			fmt.Sprintf(`{"name":"echo","arguments":{"message":"message %d"},"_meta":{"progressToken":%d}}`, i%50, i),
			fmt.Sprintf(`{"content":[{"type":"text","text":%q}],"structuredContent":{"at":"2026-01-02T03:04:%02d.%03dZ"}}`, text, variant*7, i%1000)})
	}
	return sideOf(fmt.Sprintf("v%d.jsonl", variant), "2025-11-25", xs...)
}

func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{10000} {
		a, bb := benchSide(n, 0), benchSide(n, 1)
		b.Run(fmt.Sprintf("msgs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var res Result
			for b.Loop() {
				var err error
				if res, err = Compare(a, bb); err != nil {
					b.Fatal(err)
				}
			}
			if want := (n/2 - 1) / 100; res.Summary.Changes != want || res.Summary.Paired != n/2 {
				b.Fatalf("summary %+v, want %d changes and %d pairs", res.Summary, want, n/2)
			}
		})
	}
}
