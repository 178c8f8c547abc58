package tape

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// A capture written packet by packet, for the tests: TCP connections on
// loopback whose segments can be split, reordered, sent twice or lost.

type capture struct {
	t       testing.TB
	pkts    []capPacket
	at      time.Time
	snaplen int
	ipv6    bool
	link    layers.LinkType // LinkTypeEthernet unless set: LinkTypeNull or LinkTypeRaw
	sll2    bool            // Linux cooked v2, which layers.LinkType cannot name
}

type capPacket struct {
	at   time.Time
	data []byte
	wire int // the packet's length on the wire
}

func newCapture(t testing.TB) *capture {
	return &capture{t: t, at: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC), link: layers.LinkTypeEthernet}
}

// tick moves the capture's clock on.
func (c *capture) tick(d time.Duration) { c.at = c.at.Add(d) }

type capConn struct {
	c          *capture
	cli, srv   int // ports
	cseq, sseq uint32
}

// conn opens a connection from client port cli to port 8931 (SYN,
// SYN-ACK, ACK).
func (c *capture) conn(cli int) *capConn {
	k := &capConn{c: c, cli: cli, srv: 8931, cseq: 1000, sseq: 50000}
	k.packet(true, k.cseq, nil, func(t *layers.TCP) { t.SYN = true })
	k.packet(false, k.sseq, nil, func(t *layers.TCP) { t.SYN, t.ACK = true, true })
	k.cseq++
	k.sseq++
	return k
}

// packet writes one TCP segment.
func (k *capConn) packet(fromClient bool, seq uint32, payload []byte, flags func(*layers.TCP)) {
	src, dst := k.cli, k.srv
	if !fromClient {
		src, dst = k.srv, k.cli
	}
	var ip gopacket.NetworkLayer
	var ipLayer gopacket.SerializableLayer
	etype, family := layers.EthernetTypeIPv4, layers.ProtocolFamilyIPv4
	if k.c.ipv6 {
		ip6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: net.IPv6loopback, DstIP: net.IPv6loopback}
		ip, ipLayer, etype, family = ip6, ip6, layers.EthernetTypeIPv6, layers.ProtocolFamilyIPv6Linux
	} else {
		ip4 := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IPv4(127, 0, 0, 1), DstIP: net.IPv4(127, 0, 0, 1)}
		ip, ipLayer = ip4, ip4
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src), DstPort: layers.TCPPort(dst), Seq: seq, Window: 65535}
	if flags != nil {
		flags(tcp)
	}
	if tcp.ACK && tcp.Ack == 0 { // what the other end has sent so far
		tcp.Ack = k.sseq
		if !fromClient {
			tcp.Ack = k.cseq
		}
	}
	tcp.SetNetworkLayerForChecksum(ip)
	ls := []gopacket.SerializableLayer{ipLayer, tcp, gopacket.Payload(payload)}
	switch k.c.link {
	case layers.LinkTypeEthernet:
		ls = append([]gopacket.SerializableLayer{&layers.Ethernet{SrcMAC: make(net.HardwareAddr, 6), DstMAC: make(net.HardwareAddr, 6), EthernetType: etype}}, ls...)
	case layers.LinkTypeNull:
		ls = append([]gopacket.SerializableLayer{&layers.Loopback{Family: family}}, ls...)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		k.c.t.Fatal(err)
	}
	data := append([]byte(nil), buf.Bytes()...)
	if k.c.sll2 {
		data = append(sll2Header(uint16(etype)), data...)
	}
	wire := len(data)
	if k.c.snaplen > 0 && len(data) > k.c.snaplen {
		data = data[:k.c.snaplen]
	}
	k.c.pkts = append(k.c.pkts, capPacket{at: k.c.at, data: data, wire: wire})
	k.c.tick(time.Millisecond)
}

// sll2Header is a Linux cooked v2 header, as tcpdump -i any writes
// one before a packet of protocol etype on loopback: the protocol, 2
// bytes reserved, the interface index, ARPHRD_LOOPBACK, the packet type
// (to this host), the address length and 8 bytes of address.
func sll2Header(etype uint16) []byte {
	hdr := make([]byte, 20)
	binary.BigEndian.PutUint16(hdr[0:], etype)
	binary.BigEndian.PutUint32(hdr[4:], 1)
	binary.BigEndian.PutUint16(hdr[8:], 772)
	hdr[11] = 6
	return hdr
}

// asSLL2 is c, captured raw, with a Linux cooked v2 header before each
// packet.
func (c *capture) asSLL2() *capture {
	out := *c
	out.sll2, out.pkts = true, make([]capPacket, len(c.pkts))
	for i, p := range c.pkts {
		etype := uint16(layers.EthernetTypeIPv4)
		if len(p.data) > 0 && p.data[0]>>4 == 6 {
			etype = uint16(layers.EthernetTypeIPv6)
		}
		out.pkts[i] = capPacket{at: p.at, data: append(sll2Header(etype), p.data...), wire: p.wire + 20}
	}
	return &out
}

// send sends data from one side, in segments of at most size bytes
// (0: one segment).
func (k *capConn) send(fromClient bool, data string, size int) {
	b := []byte(data)
	for len(b) > 0 {
		n := len(b)
		if size > 0 && n > size {
			n = size
		}
		seq := &k.sseq
		if fromClient {
			seq = &k.cseq
		}
		k.packet(fromClient, *seq, b[:n], func(t *layers.TCP) { t.ACK, t.PSH = true, true })
		*seq += uint32(n)
		b = b[n:]
	}
}

// fin ends both directions.
func (k *capConn) fin() {
	k.packet(true, k.cseq, nil, func(t *layers.TCP) { t.FIN, t.ACK = true, true })
	k.packet(false, k.sseq, nil, func(t *layers.TCP) { t.FIN, t.ACK = true, true })
}

// pcap writes the capture as a pcap file and returns its path.
func (c *capture) pcap() string {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if err := w.WriteFileHeader(65536, c.link); err != nil {
		c.t.Fatal(err)
	}
	if c.sll2 { // pcapgo writes the link type as a byte: write it whole
		binary.LittleEndian.PutUint32(buf.Bytes()[20:], uint32(linkSLL2))
	}
	for _, p := range c.pkts {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: p.at, CaptureLength: len(p.data), Length: p.wire}, p.data); err != nil {
			c.t.Fatal(err)
		}
	}
	return c.write("c.pcap", buf.Bytes())
}

// pcapng writes the capture as a pcapng file and returns its path.
func (c *capture) pcapng() string {
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriter(&buf, c.link)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.sll2 { // pcapgo names link types by a byte: write SLL2's into the interface description
		if err := w.Flush(); err != nil {
			c.t.Fatal(err)
		}
		b := buf.Bytes()
		idb := binary.LittleEndian.Uint32(b[4:8]) // after the section header
		if binary.LittleEndian.Uint32(b[idb:]) != ngInterface {
			c.t.Fatalf("block %d at %d, want the interface description", binary.LittleEndian.Uint32(b[idb:]), idb)
		}
		binary.LittleEndian.PutUint16(b[idb+8:], uint16(linkSLL2))
	}
	for _, p := range c.pkts {
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: p.at, CaptureLength: len(p.data), Length: p.wire}, p.data); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		c.t.Fatal(err)
	}
	return c.write("c.pcapng", buf.Bytes())
}

func (c *capture) write(name string, b []byte) string {
	path := filepath.Join(c.t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		c.t.Fatal(err)
	}
	return path
}

// post is an HTTP POST of a JSON body.
func post(path, body string, headers ...string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1:8931\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer pcap-secret\r\n%sContent-Length: %d\r\n\r\n%s",
		path, headerLines(headers), len(body), body)
}

func headerLines(h []string) string {
	var b strings.Builder
	for _, l := range h {
		b.WriteString(l + "\r\n")
	}
	return b.String()
}

// chunk is one chunk of a chunked body.
func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

const (
	pInit     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	pInitResp = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	pInited   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	pCall     = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":7}}}`
	pProgress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`
	pCallResp = `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}`
	pChanged  = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	pBadCall  = `{"jsonrpc":"2.0","id":3,"method":"nope"}`
	pBadResp  = `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}`
)

// TestPcapStreamableHTTP: a session over Streamable HTTP, its segments
// split, reordered and sent twice, its event streams chunked across
// packets, imported as the HAR importer would import the same exchanges,
// each message at the time of the packet that completed it.
func TestPcapStreamableHTTP(t *testing.T) {
	c := newCapture(t)
	a := c.conn(40001)
	// initialize, its body in two segments; the answer an event stream
	// whose event is split across chunks and packets
	a.send(true, post("/mcp", pInit), 90)
	sse := "Content-Type: text/event-stream\r\nMcp-Session-Id: S1\r\nTransfer-Encoding: chunked\r\n\r\n"
	answer := "HTTP/1.1 200 OK\r\n" + sse + chunk("id: e1\nevent: message\ndata: "+pInitResp[:40]) + chunk(pInitResp[40:]+"\n\n") + "0\r\n\r\n"
	// the event ends at its blank line: in the segment (of 70 bytes) that holds it
	initRespAt := c.at.Add(time.Duration((strings.Index(answer, pInitResp[40:])+len(pInitResp[40:])+1)/70) * time.Millisecond)
	a.send(false, answer, 70)
	// notifications/initialized: 202, no body
	a.send(true, post("/mcp", pInited, "Mcp-Session-Id: S1"), 0)
	a.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 0)
	// a tools/call on a second connection: progress, then the result; a
	// segment of the answer comes after the one after it, and twice
	b := c.conn(40002)
	b.send(true, post("/mcp", pCall, "Mcp-Session-Id: S1"), 0)
	head := "HTTP/1.1 200 OK\r\n" + sse
	body := chunk("id: e2\ndata: "+pProgress+"\n\n") + chunk("id: e3\ndata: "+pCallResp+"\n\n") + "0\r\n\r\n"
	b.send(false, head, 0)
	start := b.sseq
	first, second := body[:50], body[50:]
	b.packet(false, start+50, []byte(second), func(t *layers.TCP) { t.ACK = true })
	b.packet(false, start, []byte(first), func(t *layers.TCP) { t.ACK = true })
	b.packet(false, start, []byte(first), func(t *layers.TCP) { t.ACK = true }) // a retransmission
	b.sseq += uint32(len(body))
	callDoneAt := c.at.Add(-2 * time.Millisecond)
	// an error as a JSON body
	a.send(true, post("/mcp", pBadCall, "Mcp-Session-Id: S1"), 0)
	a.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: S1\r\nContent-Length: "+fmt.Sprint(len(pBadResp))+"\r\n\r\n"+pBadResp, 0)
	// a page that is not MCP, and the session's end
	a.send(true, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:8931\r\nAccept: text/html\r\n\r\n", 0)
	a.send(false, "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nnope", 0)
	// the GET stream: a notification, then the capture stops in an event
	g := c.conn(40003)
	g.send(true, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:8931\r\nAccept: text/event-stream\r\nMcp-Session-Id: S1\r\n\r\n", 0)
	g.send(false, "HTTP/1.1 200 OK\r\n"+sse+chunk(": ping\n\n")+chunk("id: g1\ndata: "+pChanged+"\n\n")+chunk("id: g2\ndata: "+pChanged), 0)
	a.send(true, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:8931\r\nMcp-Session-Id: S1\r\n\r\n", 0)
	a.send(false, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0)
	a.fin()
	b.fin()

	for _, path := range []string{c.pcap(), c.pcapng()} {
		t.Run(filepath.Ext(path), func(t *testing.T) {
			r, msgs := openAll(t, path)
			if r.Format() != FormatPcap {
				t.Errorf("format %s, want pcap", r.Format())
			}
			h := r.Header()
			if h.Transport != "streamable-http" || h.ProtocolVersion != "2025-11-25" || h.Server == nil || h.Server.URL != "http://127.0.0.1:8931/mcp" {
				t.Errorf("header %+v, server %+v", h, h.Server)
			}
			want := []struct {
				dir    Dir
				msg    string
				status int
				sseID  string
			}{
				{C2S, pInit, 200, ""}, {S2C, pInitResp, 200, "e1"},
				{C2S, pInited, 202, ""},
				{C2S, pCall, 200, ""}, {S2C, pProgress, 200, "e2"}, {S2C, pCallResp, 200, "e3"},
				{C2S, pBadCall, 200, ""}, {S2C, pBadResp, 200, ""},
				{S2C, pChanged, 200, "g1"}, {S2C, pChanged, 200, "g2"},
			}
			if len(msgs) != len(want) {
				for _, m := range msgs {
					t.Logf("%s %s", m.Dir, m.Msg)
				}
				t.Fatalf("%d messages, want %d", len(msgs), len(want))
			}
			for i, w := range want {
				m := msgs[i]
				var id string
				if m.SSE != nil {
					id = m.SSE.ID
				}
				if m.Dir != w.dir || string(m.Msg) != w.msg || m.HTTP == nil || m.HTTP.Status != w.status || id != w.sseID || m.Session != "s1" {
					t.Errorf("seq %d: %s %s http %+v sse id %q session %s\nwant %s %s %d %q", i, m.Dir, m.Msg, m.HTTP, id, m.Session, w.dir, w.msg, w.status, w.sseID)
				}
			}
			if got := msgs[1].HTTP.Headers["Mcp-Session-Id"]; len(got) != 1 || got[0] != "S1" {
				t.Errorf("initialize's answer headers %v, want Mcp-Session-Id S1", msgs[1].HTTP.Headers)
			}
			if got := msgs[2].HTTP.Headers["Mcp-Session-Id"]; len(got) != 1 {
				t.Errorf("a client message's headers %v, want its Mcp-Session-Id", msgs[2].HTTP.Headers)
			}
			base := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			if msgs[0].TUS != 0 {
				t.Errorf("initialize at %d µs, want 0: the tape starts with it", msgs[0].TUS)
			}
			start := base.Add(2 * time.Millisecond) // its first packet, after SYN and SYN-ACK
			if h.CreatedAt != "2026-11-27T10:00:00.002Z" {
				t.Errorf("created_at %s, want the time of the first message's packet", h.CreatedAt)
			}
			if got := start.Add(time.Duration(msgs[1].TUS) * time.Microsecond); !got.Equal(initRespAt) {
				t.Errorf("the answer at %v, want %v (the packet that ended its event)", got, initRespAt)
			}
			if got := start.Add(time.Duration(msgs[5].TUS) * time.Microsecond); !got.Equal(callDoneAt) {
				t.Errorf("the call's result at %v, want %v (the packet that filled the gap)", got, callDoneAt)
			}
			for _, m := range msgs {
				if m.HTTP != nil && m.HTTP.Headers["Authorization"] != nil {
					t.Errorf("seq %d keeps Authorization", m.Seq)
				}
			}
			ws := strings.Join(r.Warnings(), "\n")
			for _, w := range []string{"1 HTTP exchanges skipped (first: exchange 5): a GET whose answer is not a text/event-stream",
				"(first: exchange 7): a DELETE", "an event stream ends in the middle of an event"} {
				if !strings.Contains(ws, w) {
					t.Errorf("warnings lack %q:\n%s", w, ws)
				}
			}
		})
	}
}

// TestPcapSessions: the legacy HTTP+SSE transport (the posts to the
// endpoint a stream announced join its session), and Streamable HTTP
// without session ids (a new session at each initialize).
func TestPcapSessions(t *testing.T) {
	t.Run("legacy", func(t *testing.T) {
		c := newCapture(t)
		var streams []*capConn
		for i := range 2 {
			g := c.conn(41000 + i)
			g.send(true, "GET /sse HTTP/1.1\r\nHost: 127.0.0.1:8931\r\nAccept: text/event-stream\r\n\r\n", 0)
			g.send(false, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"+
				chunk(fmt.Sprintf("event: endpoint\ndata: /messages?sessionId=L%d\n\n", i)), 0)
			streams = append(streams, g)
		}
		for i, g := range streams {
			p := c.conn(42000 + i)
			p.send(true, post(fmt.Sprintf("/messages?sessionId=L%d", i), pInit), 0)
			p.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 8\r\n\r\nAccepted", 0)
			g.send(false, chunk("event: message\ndata: "+pInitResp+"\n\n"), 0)
			p.send(true, post(fmt.Sprintf("/messages?sessionId=L%d", i), pInited), 0)
			p.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 8\r\n\r\nAccepted", 0)
		}
		r, msgs := openAll(t, c.pcap())
		if h := r.Header(); h.Transport != "http+sse" || h.Server == nil || h.Server.URL != "http://127.0.0.1:8931/sse" {
			t.Errorf("header %+v", h)
		}
		got := ""
		for _, m := range msgs {
			got += fmt.Sprintf("%s:%s:%s ", m.Session, m.Dir, requestMethod(m.Msg))
		}
		want := "s1:c2s:initialize s1:s2c: s1:c2s: s2:c2s:initialize s2:s2c: s2:c2s: "
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
	t.Run("stateless", func(t *testing.T) {
		c := newCapture(t)
		for i := range 2 {
			k := c.conn(43000 + i)
			k.send(true, post("/mcp", pInit), 0)
			k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(pInitResp))+"\r\n\r\n"+pInitResp, 0)
			k.send(true, post("/mcp", pBadCall), 0)
			k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(pBadResp))+"\r\n\r\n"+pBadResp, 0)
		}
		_, msgs := openAll(t, c.pcap())
		var got []string
		for _, m := range msgs {
			got = append(got, m.Session)
		}
		if strings.Join(got, " ") != "s1 s1 s1 s1 s2 s2 s2 s2" {
			t.Errorf("sessions %v, want a new one at the second initialize", got)
		}
	})
}

// TestPcapLostSegment: a segment the capture lost (tcpdump drops
// packets when it cannot keep up), which the other end acknowledged, is
// given up at once: what follows it is read in its place in time. And a
// 2026 client's probe joins the session of its initialize even when the
// capture has the initialize's answer after the session's next request.
func TestPcapLostSegment(t *testing.T) {
	c := newCapture(t)
	probe := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}}`
	probeResp := `{"jsonrpc":"2.0","id":1,"result":{}}`
	initX := strings.Replace(pInit, `"name":"c"`, `"name":"x"`, 1)
	a := c.conn(45000)
	a.send(true, post("/mcp", probe), 0)
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	a.send(false, head+chunk("data: "+probeResp+"\n\n"), 0)
	a.sseq += uint32(len("0\r\n\r\n")) // the last chunk: sent, acknowledged, not captured
	a.send(true, post("/mcp", initX), 0)
	// the initialize's answer is captured after the next request, on
	// another connection, which carries the new session id
	answer := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: SX\r\nContent-Length: " + fmt.Sprint(len(pInitResp)) + "\r\n\r\n" + pInitResp
	b := c.conn(45001)
	b.send(true, post("/mcp", pInited, "Mcp-Session-Id: SX"), 0)
	b.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 0)
	a.send(false, answer, 0)
	answerAt := c.at.Add(-time.Millisecond)
	other := c.conn(45002) // another client, after
	other.send(true, post("/mcp", pInit), 0)
	other.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: SO\r\nContent-Length: "+fmt.Sprint(len(pInitResp))+"\r\n\r\n"+pInitResp, 0)

	r, msgs := openAll(t, c.pcap())
	var got []string
	for _, m := range msgs {
		got = append(got, m.Session+":"+requestMethod(m.Msg))
	}
	want := "s1:server/discover s1: s1:initialize s1: s1: s2:initialize s2:" // the notification and the answers name no method
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	base := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC).Add(2 * time.Millisecond)
	if at := base.Add(time.Duration(msgs[4].TUS) * time.Microsecond); len(msgs) > 4 && !at.Equal(answerAt) {
		t.Errorf("the initialize's answer at %v, want %v (its packet)", at, answerAt)
	}
	if ws := strings.Join(r.Warnings(), "\n"); !strings.Contains(ws, "bytes of a message were not captured") {
		t.Errorf("warnings %q do not say bytes were lost", ws)
	}
}

// TestPcapLinkTypes: the same exchange over IPv4 and IPv6, captured on
// Ethernet (tcpdump -i lo on Linux), BSD loopback (macOS lo0), raw IP,
// and Linux cooked v2 (tcpdump -i any), in pcap and pcapng files.
func TestPcapLinkTypes(t *testing.T) {
	for _, link := range []struct {
		name string
		lt   layers.LinkType
		sll2 bool
	}{{"ethernet", layers.LinkTypeEthernet, false}, {"null", layers.LinkTypeNull, false}, {"raw", layers.LinkTypeRaw, false}, {"sll2", layers.LinkTypeRaw, true}} {
		for _, v6 := range []bool{false, true} {
			for _, ng := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s ipv6 %v pcapng %v", link.name, v6, ng), func(t *testing.T) {
					c := newCapture(t)
					c.link, c.sll2, c.ipv6 = link.lt, link.sll2, v6
					k := c.conn(46000)
					k.send(true, post("/mcp", pBadCall), 0)
					k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(pBadResp))+"\r\n\r\n"+pBadResp, 0)
					path := c.pcap()
					if ng {
						path = c.pcapng()
					}
					r, msgs := openAll(t, path)
					if len(msgs) != 2 || string(msgs[0].Msg) != pBadCall || string(msgs[1].Msg) != pBadResp || len(r.Warnings()) != 0 {
						t.Errorf("%d messages, warnings %q", len(msgs), r.Warnings())
					}
				})
			}
		}
	}
}

// TestPcapCompressed: a gzip-compressed JSON answer is read; a
// compressed event stream is skipped and said so; the answer to a HEAD
// has no body, and what follows it on the connection is read.
func TestPcapCompressed(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(pBadResp))
	zw.Close()
	c := newCapture(t)
	k := c.conn(47000)
	k.send(true, post("/mcp", pBadCall), 0)
	k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: "+fmt.Sprint(z.Len())+"\r\n\r\n"+z.String(), 0)
	k.send(true, post("/mcp", pCall), 0)
	k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nxxxx", 0)
	// a HEAD's answer has no body, whatever its length says
	k.send(true, "HEAD /mcp HTTP/1.1\r\nHost: 127.0.0.1:8931\r\n\r\n", 0)
	k.send(false, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 18\r\n\r\n", 0)
	k.send(true, post("/mcp", pInited), 0)
	k.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 0)
	r, msgs := openAll(t, c.pcap())
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Msg))
	}
	if want := []string{pBadCall, pBadResp, pCall, pInited}; strings.Join(got, "\n") != strings.Join(want, "\n") || msgs[3].HTTP == nil || msgs[3].HTTP.Status != 202 {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ws := strings.Join(r.Warnings(), "\n"); !strings.Contains(ws, "(first: exchange 2): an answer whose body is compressed") {
		t.Errorf("warnings %q do not say the stream was skipped", ws)
	}
}

// gzipped is b compressed as gzip compresses a file: its name in the
// header.
func gzipped(t testing.TB, name string, b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Name = name
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// TestPcapGzipped: a gzip-compressed capture (capture.pcap.gz,
// capture.pcapng.gz; tcpdump's fixture among them) is imported as the
// capture itself; one cut short gives the packets before the cut and
// says so; a compressed file that is not a capture is still refused
// with the advice to decompress it.
func TestPcapGzipped(t *testing.T) {
	c := newCapture(t)
	k := c.conn(46500)
	k.send(true, post("/mcp", pBadCall), 0)
	k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(pBadResp))+"\r\n\r\n"+pBadResp, 0)
	k.send(true, post("/mcp", pInited), 0)
	k.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 0)
	fixture, err := os.ReadFile("testdata/gosdk-2025.pcap")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		path string
		want int
	}{{"capture.pcap", c.pcap(), 3}, {"capture.pcapng", c.pcapng(), 3}, {"gosdk-2025.pcap", "testdata/gosdk-2025.pcap", 40}} {
		t.Run(f.name, func(t *testing.T) {
			b, err := os.ReadFile(f.path)
			if err != nil {
				t.Fatal(err)
			}
			pr, plain := openAll(t, f.path)
			gz := c.write(f.name+".gz", gzipped(t, f.name, b))
			r, msgs := openAll(t, gz)
			ws := strings.ReplaceAll(strings.Join(r.Warnings(), "\n"), gz, f.path)
			if len(msgs) != f.want || len(msgs) != len(plain) || ws != strings.Join(pr.Warnings(), "\n") || r.Format() != FormatPcap {
				t.Fatalf("%d messages (%s), warnings %q; want %d, and the warnings of the capture itself, %q", len(msgs), r.Format(), r.Warnings(), f.want, pr.Warnings())
			}
			for i := range msgs {
				if string(msgs[i].Msg) != string(plain[i].Msg) || msgs[i].TUS != plain[i].TUS {
					t.Errorf("seq %d: %s at %d, uncompressed %s at %d", i, msgs[i].Msg, msgs[i].TUS, plain[i].Msg, plain[i].TUS)
				}
			}
		})
	}

	// cut short: the compressed stream ends in the middle of a packet
	z := gzipped(t, "gosdk-2025.pcap", fixture)
	r, msgs := openAll(t, c.write("cut.pcap.gz", z[:len(z)*2/3]))
	if len(msgs) == 0 || len(msgs) >= 40 || !strings.Contains(strings.Join(r.Warnings(), "\n"), "the capture ends in the middle of packet") {
		t.Errorf("cut: %d messages, warnings %q; want some of 40, and the cut said", len(msgs), r.Warnings())
	}
	// padded: bytes that are not gzip after the compressed stream (a
	// block device's zeros, say): every packet is imported, and it is said
	r, msgs = openAll(t, c.write("padded.pcap.gz", append(append([]byte{}, z...), make([]byte, 512)...)))
	if len(msgs) != 40 || !strings.Contains(strings.Join(r.Warnings(), "\n"), "followed by bytes that are not gzip") {
		t.Errorf("padded: %d messages, warnings %q; want all 40, and the padding said", len(msgs), r.Warnings())
	}
	// not a capture
	tape := c.write("tape.jsonl.gz", gzipped(t, "tape.jsonl", []byte(`{"type":"header","format":"replayctl-tape","version":1}`+"\n")))
	if _, err := Open(tape); err == nil || !strings.Contains(err.Error(), "gzip-compressed; decompress it") {
		t.Errorf("a compressed tape: %v; want the advice to decompress it", err)
	}
}

// TestPcapPortsReused: a connection whose end the capture lacks, then a
// new connection on the same ports: both are read.
func TestPcapPortsReused(t *testing.T) {
	c := newCapture(t)
	a := c.conn(48000)
	a.send(true, post("/mcp", pBadCall), 0)
	a.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(pBadResp))+"\r\n\r\n"+pBadResp, 0)
	b := &capConn{c: c, cli: 48000, srv: 8931, cseq: 900000, sseq: 7}
	b.packet(true, b.cseq, nil, func(t *layers.TCP) { t.SYN = true })
	b.packet(false, b.sseq, nil, func(t *layers.TCP) { t.SYN, t.ACK = true, true })
	b.cseq++
	b.sseq++
	b.send(true, post("/mcp", pInited), 0)
	b.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 0)
	r, msgs := openAll(t, c.pcap())
	if len(msgs) != 3 || string(msgs[2].Msg) != pInited || msgs[2].HTTP == nil || msgs[2].HTTP.Status != 202 || len(r.Warnings()) != 0 {
		t.Errorf("%d messages, warnings %q; want the second connection's notification with its 202", len(msgs), r.Warnings())
	}
}

// TestPcapDamaged: a capture that starts in the middle of a connection,
// packets cut by the snapshot length, a connection that is not HTTP, a
// file cut in a packet: what can be read is imported, and the rest is
// said once each.
func TestPcapDamaged(t *testing.T) {
	c := newCapture(t)
	// a connection already open when the capture started: the end of an
	// answer, then a whole exchange
	k := &capConn{c: c, cli: 44000, srv: 8931, cseq: 7000, sseq: 9000}
	k.send(false, `"result":{}}`, 0)
	k.send(true, post("/mcp", pBadCall), 0)
	k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(pBadResp))+"\r\n\r\n"+pBadResp, 0)
	// TLS
	tls := c.conn(44001)
	tls.send(true, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 client hello", 0)
	// a POST cut by the snapshot length: its body is lost, the next one
	// on the connection is read
	cut := c.conn(44002)
	c.snaplen = 120
	cut.send(true, post("/mcp", pCall), 0)
	c.snaplen = 0
	cut.send(true, post("/mcp", pInited), 0)
	cut.send(false, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 0)
	path := c.pcap()
	r, msgs := openAll(t, path)
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Msg))
	}
	if want := []string{pBadCall, pBadResp, pInited}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ws := strings.Join(r.Warnings(), "\n")
	for _, w := range []string{"1 TCP connections are not HTTP/1.1", "1 packets were cut short by the capture's snapshot length"} {
		if !strings.Contains(ws, w) {
			t.Errorf("warnings lack %q:\n%s", w, ws)
		}
	}

	// the file cut in its last packet
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := c.write("torn.pcap", b[:len(b)-10])
	r, msgs = openAll(t, torn)
	// the 202 is lost: the notification is kept without a status
	if len(msgs) != 3 || msgs[2].HTTP != nil || !strings.Contains(strings.Join(r.Warnings(), "\n"), "the capture ends in the middle of packet 11") {
		t.Errorf("torn: %d messages, warnings %q; want 3, the last without a status, and the torn packet said", len(msgs), r.Warnings())
	}
	// a header that is not one
	bad := c.write("bad.pcap", append([]byte{0xd4, 0xc3, 0xb2, 0xa1}, make([]byte, 8)...))
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "capture again") {
		t.Errorf("a cut header: %v", err)
	}
}

// TestPcapFixture: a capture made here with tcpdump (see
// testdata/README.md) of the go-sdk client against the go-sdk conformance
// server: genhar's session (sampling and elicitation included).
func TestPcapFixture(t *testing.T) {
	r, msgs := openAll(t, "testdata/gosdk-2025.pcap")
	if len(msgs) != 40 || r.Header().ProtocolVersion != "2025-11-25" {
		t.Fatalf("%d messages, version %q; want 40, 2025-11-25", len(msgs), r.Header().ProtocolVersion)
	}
	methods := map[string]Dir{}
	for i, m := range msgs {
		if m.Session != "s1" || (i > 0 && m.TUS < msgs[i-1].TUS) {
			t.Errorf("seq %d: session %s t %d", i, m.Session, m.TUS)
		}
		if meth := requestMethod(m.Msg); meth != "" {
			methods[meth] = m.Dir
		}
		if bytes.Contains(m.Msg, []byte("genhar-secret-token")) || (m.HTTP != nil && m.HTTP.Headers["Authorization"] != nil) {
			t.Errorf("seq %d keeps the credential", i)
		}
	}
	for meth, dir := range map[string]Dir{"initialize": C2S, "tools/call": C2S, "sampling/createMessage": S2C, "elicitation/create": S2C} {
		if methods[meth] != dir {
			t.Errorf("%s: %q, want sent %s", meth, methods[meth], dir)
		}
	}
}

// FuzzSSESplitter: an event stream fed to the capture's splitter in
// pieces, cut anywhere, gives the events splitSSE finds in the whole
// body, and says the same of an unterminated last event.
func FuzzSSESplitter(f *testing.F) {
	f.Add([]byte("id: 1\ndata: a\n\n: c\r\ndata: b\r\n\r\nevent: x\rdata: c\r\r"), uint8(3))
	f.Add([]byte("\xEF\xBB\xBFdata: a\n\ndata: tail"), uint8(1))
	f.Add([]byte("retry: 10\ndata: a\ndata: b\n\n"), uint8(7))
	f.Fuzz(func(t *testing.T, body []byte, step uint8) {
		want, wantTail := splitSSE(body)
		var got []sseEvent
		p := &sseSplitter{event: func(ev sseEvent, _ time.Time) { got = append(got, ev) }}
		n := int(step%16) + 1
		for i := 0; i < len(body); i += n {
			p.feed(body[i:min(i+n, len(body))], time.Time{})
		}
		tail := p.close(time.Time{})
		if len(got) != len(want) || tail != wantTail {
			t.Fatalf("%d events (tail %v), want %d (tail %v)", len(got), tail, len(want), wantTail)
		}
		for i := range got {
			if got[i].id != want[i].id || got[i].event != want[i].event || got[i].retry != want[i].retry || !bytes.Equal(got[i].data, want[i].data) {
				t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
			}
		}
	})
}

// FuzzDecodePcap: any capture is imported or refused with an *Error,
// never a panic or a hang.
func FuzzDecodePcap(f *testing.F) {
	b, err := os.ReadFile("testdata/gosdk-2025.pcap")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:min(len(b), 4096)])
	f.Add(b)
	f.Add(gzipped(f, "f.pcap", b[:min(len(b), 4096)]))
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, msgs, _, err := DecodePcap("f.pcap", bytes.NewReader(doc))
		checkImport(t, msgs, err)
	})
}

// TestPcapGzipDamaged: a gzip-compressed capture that cannot be
// decompressed (cut short before its capture starts, or damaged) is
// refused with gzip's own error, what it means and what to do, not the
// advice to decompress it (which fails the same way).
func TestPcapGzipDamaged(t *testing.T) {
	c := newCapture(t)
	fixture, err := os.ReadFile("testdata/gosdk-2025.pcap")
	if err != nil {
		t.Fatal(err)
	}
	z := gzipped(t, "gosdk-2025.pcap", fixture)
	head := 10 + len("gosdk-2025.pcap") + 1 // gzip's header, the name with its NUL
	damage := func(at int, b byte) []byte {
		d := append([]byte{}, z...)
		d[at] = b
		return d
	}
	for _, tc := range []struct {
		name string
		file []byte
		want string // gzip's error, in the message
	}{
		{"cut in the gzip header", z[:12], "unexpected EOF"},
		{"cut before the capture's magic", z[:head+1], "unexpected EOF"},
		{"a damaged gzip header", damage(2, 7), "gzip: invalid header"},         // not deflate
		{"damaged compressed data", damage(head, 0xff), "flate: corrupt input"}, // block type 3
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := c.write("damaged.pcap.gz", tc.file)
			_, err := Open(path)
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("Open: %v, want a *tape.Error", err)
			}
			msg := err.Error()
			for _, w := range []string{path, tc.want, "cut short or damaged", "capture it again"} {
				if !strings.Contains(msg, w) {
					t.Errorf("Open: %q, want it to say %q", msg, w)
				}
			}
			if strings.Contains(msg, "decompress it") || te.Err == nil || !strings.Contains(te.Err.Error(), tc.want) {
				t.Errorf("Open: %q (Err %v), want gzip's error kept and no advice to decompress it", msg, te.Err)
			}
		})
	}
}
