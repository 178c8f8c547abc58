package jsonrpc

import "testing"

// A typical 150-byte MCP request.
var benchRequest = []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris","units":"metric","days":3}}}`)

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		m, err := Parse(benchRequest)
		if err != nil || m.Kind != KindRequest {
			b.Fatal(m.Kind, err)
		}
	}
}

func BenchmarkWithID(b *testing.B) {
	m, err := Parse(benchRequest)
	if err != nil {
		b.Fatal(err)
	}
	id := []byte(`100017`)
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = m.WithID(id)
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			buf = m.AppendWithID(buf[:0], id)
		}
	})
}
