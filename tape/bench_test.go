package tape

import (
	"encoding/json"
	"io"
	"testing"
)

// go test -run '^$' -bench . -benchtime 20x ./tape
func BenchmarkReader(b *testing.B) {
	for _, n := range []int{100_000} {
		b.Run("msgs=100000", func(b *testing.B) {
			p := bigTape(b, n)
			b.ReportAllocs()
			var size int64
			for b.Loop() {
				r, err := Open(p)
				if err != nil {
					b.Fatal(err)
				}
				got, err := drain(r)
				if err != nil {
					b.Fatal(err)
				}
				if got != n {
					b.Fatalf("read %d messages, want %d", got, n)
				}
				size = r.native().pos.off
				r.Close()
			}
			b.SetBytes(size)
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/line")
		})
	}
}

func BenchmarkWriter(b *testing.B) {
	w, err := NewWriter(io.Discard, Header{Transport: "stdio"})
	if err != nil {
		b.Fatal(err)
	}
	m := Message{Session: "s1", Dir: C2S, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(m); err != nil {
			b.Fatal(err)
		}
		m.Seq++
		m.TUS += 10
	}
}

func BenchmarkSeek(b *testing.B) {
	p := bigTape(b, 100_000)
	r, err := Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if err := r.SeekSeq(99_999); err != nil { // build the whole index
		b.Fatal(err)
	}
	b.ReportAllocs()
	seq := int64(0)
	for b.Loop() {
		seq = (seq + 7919) % 100_000
		if err := r.SeekSeq(seq); err != nil {
			b.Fatal(err)
		}
	}
}
