package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// TestImportPeersMemoryFlat: `import` of an mcp-cassette or mcp-recorder
// file streams it, message by message or interaction by interaction.
func TestImportPeersMemoryFlat(t *testing.T) {
	t.Run("mcp-cassette", func(t *testing.T) { flatMemory(t, 32<<20, bigCassette, ".json", ".jsonl", "import") })
	t.Run("mcp-recorder", func(t *testing.T) { flatMemory(t, 32<<20, bigRecorder, ".json", ".jsonl", "import") })
}

// TestImportPcapMemoryFlat: `import` of a packet capture streams it
// packet by packet.
func TestImportPcapMemoryFlat(t *testing.T) {
	flatMemory(t, 32<<20, bigPcap, ".pcap", ".jsonl", "import")
}

func bigCassette(t *testing.T, path string, size int64) {
	writeBig(t, path, size, `{"format_version": 2, "recorded_at": "2026-05-01T10:00:00Z", "transport": "stdio", "messages": [`, "\n]}\n", func(w *bufio.Writer, i int) {
		if i > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, "\n"+`{"seq": %d, "t_offset_ms": %d, "sender": "client", "kind": "request", "payload": {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}},`, 2*i, i, i+1, pad2k)
		fmt.Fprintf(w, "\n"+`{"seq": %d, "t_offset_ms": %d, "sender": "server", "kind": "response", "payload": {"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}}`, 2*i+1, i, i+1, pad2k)
	})
}

func bigRecorder(t *testing.T, path string, size int64) {
	writeBig(t, path, size, `{"version": "1.0", "metadata": {"transport_type": "http", "server_url": "http://127.0.0.1:8080"}, "interactions": [`, "\n]}\n", func(w *bufio.Writer, i int) {
		if i > 0 {
			w.WriteString(",")
		}
		fmt.Fprintf(w, "\n"+`{"type": "jsonrpc_request", "request": {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}, "response": {"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}, "response_is_sse": true, "response_status": 200, "latency_ms": 2}`, i+1, pad2k, i+1, pad2k)
	})
}

// bigPcap writes a capture of POSTs on 50 keep-alive loopback
// connections, each answered by an event stream, until the file has
// size bytes.
func bigPcap(t *testing.T, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := pcapgo.NewWriter(bw)
	if err := w.WriteFileHeader(65536, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var written int64
	packet := func(src, dst int, seq, ack uint32, flags func(*layers.TCP), payload string) {
		eth := &layers.Ethernet{SrcMAC: make(net.HardwareAddr, 6), DstMAC: make(net.HardwareAddr, 6), EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IPv4(127, 0, 0, 1), DstIP: net.IPv4(127, 0, 0, 1)}
		tcp := &layers.TCP{SrcPort: layers.TCPPort(src), DstPort: layers.TCPPort(dst), Seq: seq, Ack: ack, ACK: true, Window: 65535}
		if flags != nil {
			flags(tcp)
		}
		tcp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
			t.Fatal(err)
		}
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		written += int64(len(buf.Bytes())) + 16
		at = at.Add(100 * time.Microsecond)
	}
	const conns = 50
	cseq, sseq := make([]uint32, conns), make([]uint32, conns)
	for k := range conns {
		cseq[k], sseq[k] = 1000, 50000
		packet(30000+k, 8931, cseq[k], 0, func(t *layers.TCP) { t.SYN, t.ACK = true, false }, "")
		packet(8931, 30000+k, sseq[k], cseq[k]+1, func(t *layers.TCP) { t.SYN = true }, "")
		cseq[k]++
		sseq[k]++
	}
	for i := 0; written < size; i++ {
		k := i % conns
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, i+1, pad2k[:1000])
		req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8931\r\nContent-Type: application/json\r\nMcp-Session-Id: S\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		event := fmt.Sprintf("id: %d\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":%q}]}}\n\n", i, i+1, pad2k[:1000])
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(event), event)
		packet(30000+k, 8931, cseq[k], sseq[k], nil, req)
		cseq[k] += uint32(len(req))
		packet(8931, 30000+k, sseq[k], cseq[k], nil, resp)
		sseq[k] += uint32(len(resp))
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}
