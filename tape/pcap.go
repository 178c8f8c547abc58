package tape

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"time"
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
	m := binary.LittleEndian.Uint32(b)
	_, _, pcap := pcapMagic(m)
	return pcap || m == ngSection
}

// FormatPcap is a packet capture (pcap or pcapng) of Streamable HTTP traffic.
const FormatPcap Format = "pcap"

func init() { Register(pcapImporter{}) }

// pcapImporter imports a packet capture, told by its magic number, into
// a spill file.
type pcapImporter struct{}

func (pcapImporter) Format() Format { return FormatPcap }
func (pcapImporter) Stage() Stage   { return StageMagic }

// Detect claims a capture by its magic number, and every gzip file by
// gzip's (the only compressed format replayctl reads is a capture): what
// it decompresses to is checked as it is imported (decodePcap), so that
// telling it waits for no more than its first bytes.
func (pcapImporter) Detect(p *Probe) bool {
	b := p.Magic()
	return isGzip(b) || isPcap(b)
}

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
	br := bufio.NewReader(src) // src itself when it is a *bufio.Reader (Probe.Rest)
	if z, _ := br.Peek(2); isGzip(z) {
		// It was told a capture by gzip's magic number alone (Detect).
		// One that cannot be decompressed (cut short in its start, or
		// damaged) says why, and what to do (gunzip would fail too); a
		// gzip file that is not a capture (a compressed tape, log or
		// HAR) gets the native reader's words.
		damaged := func(err error) *Error {
			return &Error{Path: path, Line: 1, Seq: -1, Err: fmt.Errorf("%w: %w", ErrUnknownFormat, err),
				Msg: fmt.Sprintf("the gzip-compressed file cannot be decompressed (%v): it is cut short or damaged (gunzip fails too); copy it again from where it was made, or record or capture it again", err)}
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Header{}, nil, nil, damaged(err)
		}
		br = bufio.NewReader(zr)
		magic, err := br.Peek(4)
		if len(magic) < 4 && err != nil && err != io.EOF {
			return Header{}, nil, nil, damaged(err)
		}
		if !isPcap(magic) {
			return Header{}, nil, nil, &Error{Path: path, Line: 1, Seq: -1, Err: ErrUnknownFormat, Msg: "binary content: the file is gzip-compressed; decompress it (gunzip) and open that"}
		}
	}
	magic, _ := br.Peek(4)
	if len(magic) < 4 {
		return Header{}, nil, nil, &Error{Path: path, Seq: -1, Msg: "the packet capture is cut short in its file header: capture again"}
	}
	var ps packetSource
	if binary.LittleEndian.Uint32(magic) == ngSection {
		ng, err := newPcapngReader(br)
		if err != nil {
			return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("not a pcapng file replayctl can read (%v): capture again, or save it as pcap", err)}
		}
		ps = ng
	} else {
		pr, err := newPcapReader(br)
		if err != nil {
			return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("not a pcap file replayctl can read (%v): capture again", err)}
		}
		ps = pr
	}
	x := newPcapImport(path, store)
	for n := 1; ; n++ {
		data, at, lt, err := ps.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if n > 1 && errors.Is(err, gzip.ErrHeader) {
				x.warnings = append(x.warnings, fmt.Sprintf("tape %s: the gzip-compressed capture is followed by bytes that are not gzip (after packet %d): the packets before them are imported", path, n-1))
				break
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				x.warnings = append(x.warnings, fmt.Sprintf("tape %s: the capture ends in the middle of packet %d (the capture was stopped while it wrote): the packets before it are imported", path, n))
				break
			}
			return Header{}, nil, nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("packet %d cannot be read (%v): the capture is damaged; capture again", n, err)}
		}
		if err := x.packet(data, at, lt); err != nil {
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

// maxPacket bounds one packet of a pcap file (an IP packet is at most
// 64 KiB; captures on loopback or with offloading see no more), so that a
// damaged length cannot make the reader allocate gigabytes.
const maxPacket = 1 << 20

// pcapImport is a capture being imported.
type pcapImport struct {
	path      string
	store     msgStore
	stored    int
	refs      []importRef // tus: absolute µs until finish
	keys      []string    // each stored message's session key
	conns     map[connKey]*pcapConn
	nconn     int
	sess      pcapSessions
	skips     harSkips
	lost      harSkips
	warnings  []string
	seg       tcpSegment
	unknown   map[linkType]int
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
		sess: newPcapSessions(), unknown: map[linkType]int{}}
}

// connKey names a TCP connection by its two ends, the lower first.
type connKey struct{ a, b string }

func endpointOf(ip net.IP, port uint16) string {
	return net.JoinHostPort(ip.String(), strconv.Itoa(int(port)))
}

// packet takes one packet of link type lt.
func (x *pcapImport) packet(data []byte, at time.Time, lt linkType) error {
	first, ok := firstLayer(data, lt)
	if !ok {
		x.unknown[lt]++
		return nil
	}
	tcp := &x.seg
	if !decodeTCP(data, first, tcp) { // not TCP over IP, or a fragment: loopback and TCP send none
		return nil
	}
	src, dst, payloadLen := net.IP(tcp.src), net.IP(tcp.dst), tcp.ipPayload
	from, to := endpointOf(src, tcp.srcPort), endpointOf(dst, tcp.dstPort)
	key := connKey{from, to}
	if to < from {
		key = connKey{to, from}
	}
	c := x.conns[key]
	if c != nil && tcp.syn && !tcp.ackf && c.reopened(from, tcp.seq) {
		c.closeAll(at) // the ports were used again: a new connection
		delete(x.conns, key)
		c = nil
	}
	if c == nil {
		if tcp.rst || (tcp.fin && len(tcp.payload) == 0) {
			return nil // the end of a connection seen without its start
		}
		x.nconn++
		c = newPcapConn(x, x.nconn)
		x.conns[key] = c
	}
	h := c.half(from, tcp.syn && !tcp.ackf)
	if tcp.syn {
		h.tcp.syn(tcp.seq)
	}
	if tcp.ackf {
		c.half(to, false).tcp.acked(tcp.ack)
	}
	payload := tcp.payload
	h.tcp.add(tcp.seq, payload, at)
	if want := payloadLen - int(tcp.dataOffset)*4; payloadLen >= 0 && want > len(payload) && !tcp.syn {
		// cut by the capture's snapshot length: the rest is lost
		x.snapCut++
		h.tcp.skipTo(tcp.seq + uint32(want))
	}
	if tcp.fin || tcp.rst {
		h.tcp.finish()
		h.http.close(at)
		if tcp.rst { // both directions end
			for _, o := range c.halves {
				if o != nil && !o.tcp.closed {
					o.tcp.finish()
					o.http.close(at)
				}
			}
		}
		if c.done() {
			c.endAll(at)
			delete(x.conns, key)
		}
	}
	return nil
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
		say("%d packets of link type %d are skipped: replayctl reads Ethernet, loopback, Linux cooked (v1, v2) and raw IP captures", x.unknown[linkType(lt)], lt)
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
