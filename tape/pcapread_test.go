package tape

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// decodedPacket is what the importer takes from one packet.
type decodedPacket struct {
	at               time.Time
	link             int
	tcp              bool
	src, dst         string
	srcPort, dstPort uint16
	seq, ack         uint32
	dataOffset       uint8
	syn, ackf        bool
	fin, rst         bool
	payload          string
	ipPayload        int
}

// ownPackets decodes a capture with replayctl's readers and decoders.
func ownPackets(t *testing.T, b []byte) []decodedPacket {
	t.Helper()
	var ps packetSource
	var err error
	if binary.LittleEndian.Uint32(b) == ngSection {
		ps, err = newPcapngReader(bytes.NewReader(b))
	} else {
		ps, err = newPcapReader(bytes.NewReader(b))
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []decodedPacket
	for {
		data, at, lt, err := ps.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		p := decodedPacket{at: at, link: int(lt), ipPayload: -1}
		var s tcpSegment
		if first, ok := firstLayer(data, lt); ok && decodeTCP(data, first, &s) {
			p = decodedPacket{at: at, link: int(lt), tcp: true, src: net.IP(s.src).String(), dst: net.IP(s.dst).String(),
				srcPort: s.srcPort, dstPort: s.dstPort, seq: s.seq, ack: s.ack, dataOffset: s.dataOffset,
				syn: s.syn, ackf: s.ackf, fin: s.fin, rst: s.rst, payload: string(s.payload), ipPayload: s.ipPayload}
		}
		out = append(out, p)
	}
}

// gopacketPackets decodes a capture with gopacket, as the importer did
// before it had its own decoders.
func gopacketPackets(t *testing.T, b []byte) []decodedPacket {
	t.Helper()
	type reader interface {
		ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	}
	var r reader
	var link func(ci gopacket.CaptureInfo) layers.LinkType
	if binary.LittleEndian.Uint32(b) == ngSection {
		ng, err := pcapgo.NewNgReader(bytes.NewReader(b), pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil {
			t.Fatal(err)
		}
		r = ng
		link = func(ci gopacket.CaptureInfo) layers.LinkType { return ci.AncillaryData[0].(layers.LinkType) }
	} else {
		pr, err := pcapgo.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = pr
		link = func(gopacket.CaptureInfo) layers.LinkType { return pr.LinkType() }
	}
	var (
		eth layers.Ethernet
		lo  layers.Loopback
		sll layers.LinuxSLL
		ip4 layers.IPv4
		ip6 layers.IPv6
		tcp layers.TCP
		d1q layers.Dot1Q
	)
	var out []decodedPacket
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		lt := link(ci)
		p := decodedPacket{at: ci.Timestamp, link: int(lt), ipPayload: -1}
		var first gopacket.LayerType
		switch lt {
		case layers.LinkTypeEthernet:
			first = layers.LayerTypeEthernet
		case layers.LinkTypeNull, layers.LinkTypeLoop:
			first = layers.LayerTypeLoopback
		case layers.LinkTypeLinuxSLL:
			first = layers.LayerTypeLinuxSLL
		default:
			first = layers.LayerTypeIPv4
			if len(data) > 0 && data[0]>>4 == 6 {
				first = layers.LayerTypeIPv6
			}
		}
		parser := gopacket.NewDecodingLayerParser(first, &eth, &lo, &sll, &ip4, &ip6, &tcp, &d1q)
		parser.IgnoreUnsupported = true
		var decoded []gopacket.LayerType
		_ = parser.DecodeLayers(data, &decoded)
		var src, dst net.IP
		hasTCP, payloadLen := false, -1
		for _, l := range decoded {
			switch l {
			case layers.LayerTypeIPv4:
				src, dst = ip4.SrcIP, ip4.DstIP
				payloadLen = int(ip4.Length) - int(ip4.IHL)*4
			case layers.LayerTypeIPv6:
				src, dst = ip6.SrcIP, ip6.DstIP
				if ip6.Length > 0 && ip6.NextHeader == layers.IPProtocolTCP {
					payloadLen = int(ip6.Length)
				}
			case layers.LayerTypeTCP:
				hasTCP = true
			}
		}
		if hasTCP && src != nil {
			p = decodedPacket{at: ci.Timestamp, link: int(lt), tcp: true, src: src.String(), dst: dst.String(),
				srcPort: uint16(tcp.SrcPort), dstPort: uint16(tcp.DstPort), seq: tcp.Seq, ack: tcp.Ack, dataOffset: tcp.DataOffset,
				syn: tcp.SYN, ackf: tcp.ACK, fin: tcp.FIN, rst: tcp.RST, payload: string(tcp.Payload), ipPayload: payloadLen}
		}
		out = append(out, p)
	}
}

// bigEndianPcap rewrites a little-endian pcap file in big-endian byte
// order.
func bigEndianPcap(b []byte) []byte {
	out := append([]byte(nil), b...)
	swap := func(b []byte) {
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
	}
	swap(out[0:4])
	swap(out[4:6])
	swap(out[6:8])
	for o := 8; o < 24; o += 4 {
		swap(out[o : o+4])
	}
	for o := 24; o+16 <= len(out); {
		n := int(binary.LittleEndian.Uint32(out[o+8:]))
		for f := o; f < o+16; f += 4 {
			swap(out[f : f+4])
		}
		o += 16 + n
	}
	return out
}

// pcapngMixed writes c's packets into a pcapng file whose packets
// alternate between two interfaces: c's link type at microseconds, and
// the same at nanoseconds with a time offset.
func pcapngMixed(t testing.TB, c *capture) []byte {
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{LinkType: c.link, SnapLength: 65536, TimestampResolution: 6},
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "replayctl test", Comment: "two interfaces"}})
	if err != nil {
		t.Fatal(err)
	}
	nano, err := w.AddInterface(pcapgo.NgInterface{Name: "lo", LinkType: c.link, SnapLength: 65536, TimestampResolution: 9, TimestampOffset: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range c.pkts {
		ci := gopacket.CaptureInfo{Timestamp: p.at.Add(time.Duration(i) * 1234567 * time.Nanosecond), CaptureLength: len(p.data), Length: p.wire}
		if i%2 == 1 {
			ci.InterfaceIndex = nano
		}
		if err := w.WritePacket(ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPcapDecodersMatchGopacket: the same generated captures (pcap in
// both byte orders and resolutions, pcapng with two interfaces; every
// link type the importer reads; IPv4 and IPv6; segments cut by the
// snapshot length) decoded with replayctl's readers and with gopacket
// give the same packets.
func TestPcapDecodersMatchGopacket(t *testing.T) {
	fixture, err := os.ReadFile("testdata/gosdk-2025.pcap")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"fixture": fixture}
	// gopacket (1.1.19) does not decode Linux cooked v2: an SLL2 capture's
	// packets are held to gopacket's of its twin, the same packets raw
	twins := map[string][]byte{}
	for _, lt := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeNull, layers.LinkTypeRaw} {
		for _, v6 := range []bool{false, true} {
			c := newCapture(t)
			c.link, c.ipv6 = lt, v6
			k := c.conn(41000)
			k.send(true, post("/mcp", pInit), 90)
			k.send(false, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(pInitResp))+"\r\n\r\n"+pInitResp, 50)
			c.snaplen = 80
			k.send(true, post("/mcp", pCall), 0)
			c.snaplen = 0
			c.tick(1500 * time.Microsecond)
			k.send(true, post("/mcp", pBadCall), 0)
			k.fin()
			name := fmt.Sprintf("%v ipv6 %v", lt, v6)
			le, err := os.ReadFile(c.pcap())
			if err != nil {
				t.Fatal(err)
			}
			files[name+" pcap"] = le
			files[name+" pcap big-endian"] = bigEndianPcap(le)
			var nb bytes.Buffer
			w := pcapgo.NewWriterNanos(&nb)
			if err := w.WriteFileHeader(65536, lt); err != nil {
				t.Fatal(err)
			}
			for i, p := range c.pkts {
				if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: p.at.Add(time.Duration(i) * 7 * time.Nanosecond), CaptureLength: len(p.data), Length: p.wire}, p.data); err != nil {
					t.Fatal(err)
				}
			}
			files[name+" pcap nanoseconds"] = nb.Bytes()
			files[name+" pcap nanoseconds big-endian"] = bigEndianPcap(nb.Bytes())
			files[name+" pcapng"] = pcapngMixed(t, c)
			if lt == layers.LinkTypeRaw {
				s := c.asSLL2()
				for _, path := range []string{s.pcap(), s.pcapng()} {
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					files[name+" sll2 "+filepath.Base(path)], twins[name+" sll2 "+filepath.Base(path)] = b, le
				}
			}
		}
	}
	for name, b := range files {
		own, gp := ownPackets(t, b), gopacketPackets(t, b)
		if twin, ok := twins[name]; ok {
			gp = gopacketPackets(t, twin)
			for i := range gp {
				gp[i].link = int(linkSLL2)
			}
		}
		if len(own) != len(gp) || len(own) == 0 {
			t.Errorf("%s: %d packets, gopacket %d", name, len(own), len(gp))
			continue
		}
		tcp := 0
		for i := range own {
			if own[i] != gp[i] {
				t.Errorf("%s: packet %d:\n%+v\ngopacket:\n%+v", name, i+1, own[i], gp[i])
				break
			}
			if own[i].tcp {
				tcp++
			}
		}
		if tcp == 0 {
			t.Errorf("%s: no TCP segment decoded", name)
		}
	}
}

// FuzzPcapDecoders: any bytes, as a capture file or as a packet of any
// link type, are read or refused, never a panic or a hang.
func FuzzPcapDecoders(f *testing.F) {
	b, err := os.ReadFile("testdata/gosdk-2025.pcap")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:min(len(b), 2048)])
	c := newCapture(f)
	k := c.conn(42000)
	k.send(true, post("/mcp", pBadCall), 0)
	f.Add(c.pkts[0].data)
	f.Add(pcapngMixed(f, c))
	f.Add([]byte{0x0A, 0x0D, 0x0D, 0x0A, 28, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0})
	f.Add(c.asSLL2().pkts[0].data)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, lt := range []linkType{linkNull, linkEthernet, linkRaw, linkLoop, linkLinuxSLL, linkSLL2, linkIPv4, linkIPv6, 12, 7} {
			var s tcpSegment
			if first, ok := firstLayer(b, lt); ok && decodeTCP(b, first, &s) {
				if len(s.payload) > len(b) || (len(s.src) != 4 && len(s.src) != 16) {
					t.Fatalf("link %d: a segment of %d bytes from %d, source %x", lt, len(s.payload), len(b), s.src)
				}
			}
		}
		for _, open := range []func(io.Reader) (packetSource, error){
			func(r io.Reader) (packetSource, error) { return newPcapReader(r) },
			func(r io.Reader) (packetSource, error) { return newPcapngReader(r) },
		} {
			ps, err := open(bytes.NewReader(b))
			if err != nil {
				continue
			}
			for n := 0; n <= len(b); n++ { // every packet takes at least a byte of the file
				data, _, _, err := ps.next()
				if err != nil {
					break
				}
				if len(data) > maxPacket {
					t.Fatalf("a packet of %d bytes", len(data))
				}
			}
		}
	})
}

// TestSLL2Frame: a hand-built Linux cooked v2 frame gives the TCP segment
// of the IP packet after its header, for IPv4 and IPv6; a frame of
// another protocol (ARP), or shorter than the header, gives none.
func TestSLL2Frame(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		c := newCapture(t)
		c.link, c.ipv6 = layers.LinkTypeRaw, v6
		k := c.conn(43000)
		k.send(true, post("/mcp", pBadCall), 0)
		ip := c.pkts[len(c.pkts)-1].data
		etype, first := uint16(0x0800), layerIPv4
		if v6 {
			etype, first = 0x86DD, layerIPv6
		}
		var want, got tcpSegment
		if !decodeTCP(ip, first, &want) || string(want.payload) != post("/mcp", pBadCall) {
			t.Fatalf("ipv6 %v: the raw packet gives no segment, or %q", v6, want.payload)
		}
		frame := append(sll2Header(etype), ip...)
		if l, ok := firstLayer(frame, linkSLL2); !ok || !decodeTCP(frame, l, &got) || !reflect.DeepEqual(got, want) {
			t.Errorf("ipv6 %v: the SLL2 frame gives %+v, want %+v", v6, got, want)
		}
		arp := append(sll2Header(0x0806), ip...)
		if decodeTCP(arp, layerSLL2, &got) {
			t.Errorf("ipv6 %v: a frame of protocol ARP gives a segment", v6)
		}
		if decodeTCP(frame[:19], layerSLL2, &got) {
			t.Errorf("ipv6 %v: 19 bytes give a segment", v6)
		}
	}
}
