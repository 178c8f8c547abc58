package tape

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// Packet captures (pcap, pcapng; tcpdump, Wireshark) of MCP over HTTP/1.1:
// Streamable HTTP and the legacy HTTP+SSE transport. The importer reads
// the capture packet by packet (pure Go, no libpcap), puts each TCP
// connection's two byte streams back together (pcaptcp.go), reads them
// as HTTP/1.1 (pcaphttp.go) and event streams (pcapsse.go), and finds in
// them the messages a HAR entry would hold (see DecodeHAR): a POST's
// body is the client's message, its answer (JSON or an event stream) the
// server's, a GET's event stream server messages. Unlike a HAR, a capture
// has the time of every packet: each message is at the time of the
// packet that completed it (a request at its first byte).

// isPcap reports whether b, a file's first bytes, is a pcap or pcapng
// header.
func isPcap(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	switch binary.LittleEndian.Uint32(b) {
	case 0xA1B2C3D4, 0xD4C3B2A1, 0xA1B23C4D, 0x4D3CB2A1, 0x0A0D0D0A:
		return true
	}
	return false
}

// packetSource is a pcap or pcapng reader. The data of a packet it
// returns is valid until the next read: the TCP streams copy what they
// keep.
type packetSource interface {
	ZeroCopyReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// FormatPcap is a packet capture (pcap or pcapng) of Streamable HTTP traffic.
const FormatPcap Format = "pcap"

func init() { Register(pcapImporter{}) }

// pcapImporter imports a packet capture, told by its magic number, into
// a spill file.
type pcapImporter struct{}

func (pcapImporter) Format() Format       { return FormatPcap }
func (pcapImporter) Stage() Stage         { return StageMagic }
func (pcapImporter) Detect(p *Probe) bool { return isPcap(p.Magic()) }

func (pcapImporter) Import(p *Probe) (*Imported, error) {
	store, err := newSpillStore(p.Path())
	if err != nil {
		return nil, err
	}
	h, im, warnings, err := decodePcap(p.Path(), p.Rest(), store)
	if err != nil {
		store.close()
		return nil, err
	}
	return &Imported{Header: h, Warnings: warnings, src: im}, nil
}

// DecodePcap imports a packet capture (pcap or pcapng) of MCP traffic
// over HTTP/1.1 into a synthesized header, the messages in time order
// numbered from 0, and warnings that say what was left out and why.
// Sessions are named s1, s2, … in order of appearance: one per
// Mcp-Session-Id; one per legacy HTTP+SSE stream (the posts to the
// endpoint it announced join it); exchanges without either, one per
// endpoint URL, a new one at each initialize. Credential headers are
// never imported. Bad input is an *Error.
func DecodePcap(path string, src io.Reader) (Header, []Message, []string, error) {
	var store memStore
	h, im, warnings, err := decodePcap(path, src, &store)
	if err != nil {
		return Header{}, nil, nil, err
	}
	msgs, err := im.messages()
	if err != nil {
		return Header{}, nil, nil, err
	}
	return h, msgs, warnings, nil
}

func decodePcap(path string, src io.Reader, store msgStore) (Header, *imported, []string, error) {
	var head [24]byte // a pcap file's header; a pcapng block's start
	n, err := io.ReadFull(src, head[:])
	if err != nil && n < 4 {
		return Header{}, nil, nil, &Error{Path: path, Seq: -1, Msg: "the packet capture is cut short in its file header: capture again"}
	}
	magic := head[:4]
	full := io.MultiReader(bytesReader(head[:n]), src)
	var ps packetSource
	sll2 := false
	var link func(ci gopacket.CaptureInfo) layers.LinkType
	if binary.LittleEndian.Uint32(magic[:]) == 0x0A0D0D0A {
		ng, err := pcapgo.NewNgReader(full, pcapgo.NgReaderOptions{WantMixedLinkType: true})
		if err != nil {
			return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("not a pcapng file replayctl can read (%v): capture again, or save it as pcap", err)}
		}
		ps = ng
		link = func(ci gopacket.CaptureInfo) layers.LinkType {
			if len(ci.AncillaryData) > 0 {
				if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
					return lt
				}
			}
			return ng.LinkType()
		}
	} else {
		pr, err := pcapgo.NewReader(full)
		if err != nil {
			return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("not a pcap file replayctl can read (%v): capture again", err)}
		}
		if pr.Snaplen() > maxPacket { // a damaged header: a packet is never this long
			pr.SetSnaplen(maxPacket)
		}
		ps = pr
		lt := pr.LinkType()
		order := binary.ByteOrder(binary.LittleEndian)
		if m := binary.LittleEndian.Uint32(magic); m == 0xD4C3B2A1 || m == 0x4D3CB2A1 {
			order = binary.BigEndian
		}
		if order.Uint32(head[20:24])&0xFFFF == linkSLL2 {
			sll2 = true
		}
		link = func(gopacket.CaptureInfo) layers.LinkType { return lt }
	}
	x := newPcapImport(path, store)
	for n := 1; ; n++ {
		data, ci, err := ps.ZeroCopyReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				x.warnings = append(x.warnings, fmt.Sprintf("tape %s: the capture ends in the middle of packet %d (the capture was stopped while it wrote): the packets before it are imported", path, n))
				break
			}
			return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("packet %d cannot be read (%v): the capture is damaged; capture again", n, err)}
		}
		lt, off := link(ci), 0
		if sll2 {
			lt, off = layers.LinkTypeRaw, 20
		}
		if err := x.packet(data, off, ci, lt); err != nil {
			return Header{}, nil, nil, err
		}
		if x.err != nil {
			return Header{}, nil, nil, x.err
		}
	}
	x.finishAll()
	if x.err != nil {
		return Header{}, nil, nil, x.err
	}
	h, refs, rename := x.finish()
	return h, &imported{store: store, refs: refs, rename: rename}, x.warnings, nil
}

// bytesReader is a reader of b.
func bytesReader(b []byte) io.Reader { return &byteReader{b: b} }

type byteReader struct{ b []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// maxPacket bounds one packet of a pcap file (an IP packet is at most
// 64 KiB; captures on loopback or with offloading see no more), so that a
// damaged length cannot make the reader allocate gigabytes.
const maxPacket = 1 << 20

// linkSLL2 is the link type of Linux "cooked" captures v2 (tcpdump -i
// any since 4.99), which gopacket neither decodes nor names: its
// LinkType is a byte, so pcapgo reports 276 as 20. The importer reads a
// pcap file's link type from the header itself.
const linkSLL2 = 276

// pcapImport is a capture being imported.
type pcapImport struct {
	path     string
	store    msgStore
	stored   int
	refs     []importRef // tus: absolute µs until finish
	keys     []string    // each stored message's session key
	conns    map[connKey]*pcapConn
	nconn    int
	sess     pcapSessions
	skips    harSkips
	lost     harSkips
	warnings []string
	parsers  map[gopacket.LayerType]*gopacket.DecodingLayerParser
	layers   struct {
		eth  layers.Ethernet
		lo   layers.Loopback
		sll  layers.LinuxSLL
		ip4  layers.IPv4
		ip6  layers.IPv6
		tcp  layers.TCP
		d1q  layers.Dot1Q
		skip gopacket.Payload
	}
	decoded   []gopacket.LayerType
	unknown   map[layers.LinkType]int
	snapCut   int
	endpoint  string
	version   string
	legacy    bool
	notHTTP   int
	orphans   int
	err       error // a store error, which ends the import
	exchanges int
}

func newPcapImport(path string, store msgStore) *pcapImport {
	return &pcapImport{path: path, store: store, conns: map[connKey]*pcapConn{},
		sess:    newPcapSessions(),
		parsers: map[gopacket.LayerType]*gopacket.DecodingLayerParser{}, unknown: map[layers.LinkType]int{}}
}

// connKey names a TCP connection by its two ends, the lower first.
type connKey struct{ a, b string }

func endpointOf(ip net.IP, port layers.TCPPort) string {
	return net.JoinHostPort(ip.String(), strconv.Itoa(int(port)))
}

// packet takes one packet, its link header skip bytes in (Linux cooked
// v2's, which gopacket does not decode).
func (x *pcapImport) packet(data []byte, skip int, ci gopacket.CaptureInfo, lt layers.LinkType) error {
	if len(data) < skip {
		return nil
	}
	data = data[skip:]
	first, off, ok := x.linkLayer(data, lt)
	if !ok {
		return nil
	}
	p := x.parsers[first]
	if p == nil {
		l := &x.layers
		p = gopacket.NewDecodingLayerParser(first, &l.eth, &l.lo, &l.sll, &l.ip4, &l.ip6, &l.tcp, &l.d1q)
		p.IgnoreUnsupported = true
		x.parsers[first] = p
	}
	x.decoded = x.decoded[:0]
	_ = p.DecodeLayers(data[off:], &x.decoded) // what it cannot decode is not TCP over IP
	var src, dst net.IP
	hasTCP, payloadLen := false, -1
	tcp := &x.layers.tcp
	for _, t := range x.decoded {
		switch t {
		case layers.LayerTypeIPv4:
			ip := &x.layers.ip4
			if ip.Flags&layers.IPv4MoreFragments != 0 || ip.FragOffset != 0 {
				return nil // a fragment: loopback and TCP send none
			}
			src, dst = ip.SrcIP, ip.DstIP
			if ip.Length > 0 {
				payloadLen = int(ip.Length) - int(ip.IHL)*4
			}
		case layers.LayerTypeIPv6:
			ip := &x.layers.ip6
			src, dst = ip.SrcIP, ip.DstIP
			if ip.Length > 0 && ip.NextHeader == layers.IPProtocolTCP {
				payloadLen = int(ip.Length)
			}
		case layers.LayerTypeTCP:
			hasTCP = true
		}
	}
	if !hasTCP || src == nil {
		return nil
	}
	from, to := endpointOf(src, tcp.SrcPort), endpointOf(dst, tcp.DstPort)
	key := connKey{from, to}
	if to < from {
		key = connKey{to, from}
	}
	c := x.conns[key]
	if c != nil && tcp.SYN && !tcp.ACK && c.reopened(from, tcp.Seq) {
		c.closeAll(ci.Timestamp) // the ports were used again: a new connection
		delete(x.conns, key)
		c = nil
	}
	if c == nil {
		if tcp.RST || (tcp.FIN && len(tcp.Payload) == 0) {
			return nil // the end of a connection seen without its start
		}
		x.nconn++
		c = newPcapConn(x, x.nconn)
		x.conns[key] = c
	}
	h := c.half(from, tcp.SYN && !tcp.ACK)
	if tcp.SYN {
		h.tcp.syn(tcp.Seq)
	}
	if tcp.ACK {
		c.half(to, false).tcp.acked(tcp.Ack)
	}
	payload := tcp.Payload
	h.tcp.add(tcp.Seq, payload, ci.Timestamp)
	if want := payloadLen - int(tcp.DataOffset)*4; payloadLen >= 0 && want > len(payload) && !tcp.SYN {
		// cut by the capture's snapshot length: the rest is lost
		x.snapCut++
		h.tcp.skipTo(tcp.Seq + uint32(want))
	}
	if tcp.FIN || tcp.RST {
		h.tcp.finish()
		h.http.close(ci.Timestamp)
		if tcp.RST { // both directions end
			for _, o := range c.halves {
				if o != nil && !o.tcp.closed {
					o.tcp.finish()
					o.http.close(ci.Timestamp)
				}
			}
		}
		if c.done() {
			c.endAll(ci.Timestamp)
			delete(x.conns, key)
		}
	}
	return nil
}

// linkLayer returns the first layer to decode packet data of link type
// lt with, and where it starts.
func (x *pcapImport) linkLayer(data []byte, lt layers.LinkType) (gopacket.LayerType, int, bool) {
	byVersion := func(off int) (gopacket.LayerType, int, bool) {
		if len(data) <= off {
			return 0, 0, false
		}
		switch data[off] >> 4 {
		case 4:
			return layers.LayerTypeIPv4, off, true
		case 6:
			return layers.LayerTypeIPv6, off, true
		}
		return 0, 0, false
	}
	switch lt {
	case layers.LinkTypeEthernet:
		return layers.LayerTypeEthernet, 0, true
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		return layers.LayerTypeLoopback, 0, true
	case layers.LinkTypeLinuxSLL:
		return layers.LayerTypeLinuxSLL, 0, true
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6, 12: // 12: raw IP on some systems
		return byVersion(0)
	}
	x.unknown[lt]++
	return 0, 0, false
}

// add keeps a message found at an absolute time.
func (x *pcapImport) add(m Message, at time.Time) {
	if x.err != nil {
		return
	}
	if err := x.store.add(m); err != nil {
		x.err = &Error{Path: x.path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot keep a message (%v)", err)}
		return
	}
	x.refs = append(x.refs, importRef{i: int32(x.stored), seq: int64(x.stored), tus: at.UnixMicro(), dir: codeOf(m.Dir)})
	x.keys = append(x.keys, m.Session)
	x.stored++
}

// finishAll ends every connection still open when the capture ended.
func (x *pcapImport) finishAll() {
	keys := make([]connKey, 0, len(x.conns))
	for k := range x.conns {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return x.conns[keys[i]].n < x.conns[keys[j]].n })
	for _, k := range keys {
		x.conns[k].closeAll(x.conns[k].last)
	}
}

// finish orders the messages by time, names the sessions in the order
// of their first message, and makes the header.
func (x *pcapImport) finish() (Header, []importRef, map[string]string) {
	refs := x.refs
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].tus < refs[j].tus })
	var base int64
	if len(refs) > 0 {
		base = refs[0].tus
	}
	rename := map[string]string{}
	names := map[string]string{} // root key → name
	for k := range refs {
		refs[k].seq, refs[k].tus = int64(k), refs[k].tus-base
		key := x.keys[refs[k].i]
		if _, ok := rename[key]; ok {
			continue
		}
		root := x.sess.root(key)
		name, ok := names[root]
		if !ok {
			name = "s" + strconv.Itoa(len(names)+1)
			names[root] = name
		}
		rename[key] = name
	}
	say := func(format string, args ...any) {
		x.warnings = append(x.warnings, fmt.Sprintf("tape %s: ", x.path)+fmt.Sprintf(format, args...))
	}
	for _, r := range x.skips.reasons {
		say("%d HTTP exchanges skipped (first: exchange %d): %s", x.skips.count[r], x.skips.first[r], r)
	}
	for _, r := range x.lost.reasons {
		say("%d times (first: connection %d): %s", x.lost.count[r], x.lost.first[r], r)
	}
	if x.notHTTP > 0 {
		say("%d TCP connections are not HTTP/1.1 (TLS, HTTP/2 or another protocol) and are skipped: capture MCP over plain HTTP/1.1", x.notHTTP)
	}
	if x.orphans > 0 {
		say("%d HTTP answers came without their request (the capture started after it) and are skipped", x.orphans)
	}
	if x.snapCut > 0 {
		say("%d packets were cut short by the capture's snapshot length: their bytes are lost; capture with tcpdump -s 0", x.snapCut)
	}
	lts := make([]int, 0, len(x.unknown))
	for lt := range x.unknown {
		lts = append(lts, int(lt))
	}
	sort.Ints(lts)
	for _, lt := range lts {
		say("%d packets of link type %d are skipped: replayctl reads Ethernet, loopback, Linux cooked (v1, v2) and raw IP captures", x.unknown[layers.LinkType(lt)], lt)
	}
	h := Header{Format: FormatName, Version: FormatVersion, ProtocolVersion: x.version, Transport: "streamable-http",
		Tags: map[string]string{"imported_from": "pcap"}}
	if x.legacy {
		h.Transport = "http+sse"
	}
	if len(refs) > 0 {
		h.CreatedAt = time.UnixMicro(base).UTC().Format(time.RFC3339Nano)
	}
	if x.endpoint != "" {
		h.Server = &Server{URL: x.endpoint}
	}
	return h, refs, rename
}
