package tape

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// go test -run '^$' -bench 'ImportPeer|ImportPcap' -benchtime 5x ./tape
//
// The importers of the other recorders' files and of packet captures, on
// n messages of a tools/call session: each call answered by a progress
// notification and its result.

func BenchmarkImportPeerCassette(b *testing.B) {
	const n = 60_000
	var sb strings.Builder
	sb.WriteString(`{"format_version": 2, "recorded_at": "2026-11-27T10:00:00Z", "transport": "stdio", "messages": [`)
	for i := range n / 3 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "\n"+`{"seq": %d, "t_offset_ms": %d, "sender": "client", "kind": "request", "payload": {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}},`, 3*i, i, i, i)
		fmt.Fprintf(&sb, "\n"+`{"seq": %d, "t_offset_ms": %d, "sender": "server", "kind": "notification", "payload": {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,"progress":1}}},`, 3*i+1, i, i)
		fmt.Fprintf(&sb, "\n"+`{"seq": %d, "t_offset_ms": %d, "sender": "server", "kind": "response", "payload": {"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}}`, 3*i+2, i, i, i+2)
	}
	sb.WriteString("]}\n")
	doc := []byte(sb.String())
	benchImport(b, n, len(doc), func() (int, error) {
		_, im, _, err := decodeCassette("b.json", bytes.NewReader(doc), 0, &memStore{})
		if err != nil {
			return 0, err
		}
		return im.count(), nil
	})
}

func BenchmarkImportPeerRecorder(b *testing.B) {
	const n = 60_000
	var sb strings.Builder
	sb.WriteString(`{"version": "1.0", "metadata": {"transport_type": "http", "server_url": "http://127.0.0.1:8080"}, "interactions": [`)
	for i := range n / 2 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, "\n"+`{"type": "jsonrpc_request", "request": {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}, "response": {"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%d"}]}}, "response_is_sse": true, "response_status": 200, "latency_ms": 3}`, i, i, i, i+2)
	}
	sb.WriteString("]}\n")
	doc := []byte(sb.String())
	benchImport(b, n, len(doc), func() (int, error) {
		_, im, _, err := decodeRecorder("b.json", bytes.NewReader(doc), 0, &memStore{})
		if err != nil {
			return 0, err
		}
		return im.count(), nil
	})
}

func BenchmarkImportPeerMCPVCR(b *testing.B) {
	const n = 60_000
	var sb strings.Builder
	sb.WriteString("meta:\n  version: 1\n  session_id: \"0badc0de\"\nmessages:\n")
	for i := range n / 3 {
		fmt.Fprintf(&sb, "  - t: %d\n    dir: c2s\n    payload:\n      jsonrpc: \"2.0\"\n      id: %d\n      method: tools/call\n      params:\n        name: add\n        arguments: {a: %d, b: 2}\n", i, i, i)
		fmt.Fprintf(&sb, "  - t: %d\n    dir: s2c\n    payload:\n      jsonrpc: \"2.0\"\n      method: notifications/progress\n      params: {progressToken: %d, progress: 1}\n", i, i)
		fmt.Fprintf(&sb, "  - t: %d\n    dir: s2c\n    payload:\n      jsonrpc: \"2.0\"\n      id: %d\n      result:\n        content:\n          - {type: text, text: \"%d\"}\n", i, i, i+2)
	}
	doc := []byte(sb.String())
	benchImport(b, n, len(doc), func() (int, error) {
		_, msgs, _, err := DecodeMCPVCR("b.yaml", doc)
		return len(msgs), err
	})
}

// BenchmarkImportPcap: n/3 POSTs over 100 keep-alive connections, each
// answered by an event stream of two events in chunks, a packet each
// way per exchange.
func BenchmarkImportPcap(b *testing.B) {
	const n = 60_000
	c := newCapture(b)
	conns := make([]*capConn, 100)
	for i := range conns {
		conns[i] = c.conn(30000 + i)
	}
	sse := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: S\r\nTransfer-Encoding: chunked\r\n\r\n"
	for i := range n / 3 {
		k := conns[i%len(conns)]
		k.send(true, post("/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}`, i, i), "Mcp-Session-Id: S"), 0)
		k.send(false, sse+chunk(fmt.Sprintf("id: %d-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":1}}\n\n", i, i))+
			chunk(fmt.Sprintf("id: %d-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%d\"}]}}\n\n", i, i, i+2))+"0\r\n\r\n", 0)
		c.tick(-time.Millisecond) // 1 ms an exchange
	}
	doc, err := os.ReadFile(c.pcap())
	if err != nil {
		b.Fatal(err)
	}
	benchImport(b, n, len(doc), func() (int, error) {
		_, msgs, _, err := DecodePcap("b.pcap", bytes.NewReader(doc))
		return len(msgs), err
	})
}

// TestWriteBigCapture writes, when REPLAYCTL_BIG_PCAP names a file, a
// capture of n exchanges as BenchmarkImportPcap makes them (n from
// REPLAYCTL_BIG_PCAP_N, default 300 000: 900 000 messages, ~300 MB), to
// measure `replayctl import` on it:
//
//	REPLAYCTL_BIG_PCAP=/tmp/big.pcap go test -run TestWriteBigCapture ./tape
//	/usr/bin/time -v replayctl import /tmp/big.pcap /tmp/big.jsonl
func TestWriteBigCapture(t *testing.T) {
	path := os.Getenv("REPLAYCTL_BIG_PCAP")
	if path == "" {
		t.Skip("a measurement: set REPLAYCTL_BIG_PCAP to the file to write")
	}
	n := 300_000
	if s := os.Getenv("REPLAYCTL_BIG_PCAP_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65536, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	c := newCapture(t)
	flush := func() {
		for _, p := range c.pkts {
			if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: p.at, CaptureLength: len(p.data), Length: p.wire}, p.data); err != nil {
				t.Fatal(err)
			}
		}
		c.pkts = c.pkts[:0]
	}
	conns := make([]*capConn, 100)
	for i := range conns {
		conns[i] = c.conn(30000 + i)
	}
	sse := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: S\r\nTransfer-Encoding: chunked\r\n\r\n"
	for i := range n {
		k := conns[i%len(conns)]
		k.send(true, post("/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}`, i, i), "Mcp-Session-Id: S"), 0)
		k.send(false, sse+chunk(fmt.Sprintf("id: %d-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":1}}\n\n", i, i))+
			chunk(fmt.Sprintf("id: %d-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%d\"}]}}\n\n", i, i, i+2))+"0\r\n\r\n", 0)
		if len(c.pkts) > 10_000 {
			flush()
		}
	}
	flush()
}
