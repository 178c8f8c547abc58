package mock

import (
	"fmt"
	"testing"
)

// pipelineTape is the tape the engine's BenchmarkPipeline replays: one
// session of n tools/call requests, each followed by its answer.
func pipelineTape(n int) []byte {
	var b []byte
	seq := 0
	line := func(tUS int, dir, msg string) {
		b = fmt.Appendf(b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"%s","msg":%s}`+"\n", seq, tUS, dir, msg)
		seq++
	}
	b = append(b, `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}`+"\n"...)
	line(0, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	line(50, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}`)
	line(60, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= n; i++ {
		line(i*1000, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message %d"}}}`, i, i))
		line(i*1000+100, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"Echo: message %d"}]}}`, i, i))
	}
	return fmt.Appendf(b, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", seq, n*1000+100)
}

// BenchmarkStreamIndex streams the tape of the engine's BenchmarkPipeline
// (100,000 requests) to its end as a replay takes it (Mock.StreamTape):
// the mock's read and index of it, and the hand-over of its messages.
//
//	go test -run '^$' -bench StreamIndex -benchtime 5x ./mock
func BenchmarkStreamIndex(b *testing.B) {
	path := tapeFile(b, pipelineTape(100_000))
	b.ReportAllocs()
	for b.Loop() {
		streamWhole(b, path)
	}
}
