package tape

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// The capture file readers: pcap (both byte orders, micro- and
// nanosecond timestamps) and pcapng (sections in either byte order;
// interface descriptions with their link type, time resolution and
// offset; enhanced, simple and obsolete packet blocks; every other block
// skipped), either of them read through gzip when it is compressed
// (decodePcap). replayctl reads captures itself
// rather than with gopacket, whose tables (≈ 5 MB of package globals)
// the collector would scan at every collection in every replayctl
// process.

// linkType is a capture's link-layer header type (LINKTYPE_*).
type linkType uint16

// The link types the importer decodes.
const (
	linkNull     linkType = 0
	linkEthernet linkType = 1
	linkRaw      linkType = 101
	linkLoop     linkType = 108
	linkLinuxSLL linkType = 113
	linkIPv4     linkType = 228
	linkIPv6     linkType = 229
	linkSLL2     linkType = 276 // Linux cooked v2: tcpdump -i any since libpcap 1.10
)

// packetSource is a pcap or pcapng reader. The data of a packet it
// returns is valid until the next read: the TCP streams copy what they
// keep. At the end of the capture it returns io.EOF; in the middle of
// a packet io.ErrUnexpectedEOF.
type packetSource interface {
	next() (data []byte, at time.Time, lt linkType, err error)
}

// pcapReader reads a classic pcap file.
type pcapReader struct {
	r       io.Reader
	order   binary.ByteOrder
	nanos   uint32 // nanoseconds per unit of the fraction
	snaplen uint32
	link    linkType
	hdr     [16]byte
	buf     []byte
}

// pcapMagic reads m, a file's first four bytes read little-endian, as
// a pcap file's magic number: the byte order of the file and the
// nanoseconds per unit of its timestamps' fraction. ok is false when m
// is not one (pcapng's is ngSection).
func pcapMagic(m uint32) (order binary.ByteOrder, nanos uint32, ok bool) {
	switch m {
	case 0xA1B2C3D4:
		return binary.LittleEndian, 1000, true
	case 0xD4C3B2A1:
		return binary.BigEndian, 1000, true
	case 0xA1B23C4D:
		return binary.LittleEndian, 1, true
	case 0x4D3CB2A1:
		return binary.BigEndian, 1, true
	}
	return nil, 0, false
}

// isGzip reports whether b, a file's first bytes, starts as a gzip
// file does.
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// newPcapReader reads the file header.
func newPcapReader(src io.Reader) (*pcapReader, error) {
	r := &pcapReader{r: bufio.NewReader(src)}
	var h [24]byte
	if _, err := io.ReadFull(r.r, h[:]); err != nil {
		return nil, err
	}
	var ok bool
	if r.order, r.nanos, ok = pcapMagic(binary.LittleEndian.Uint32(h[:4])); !ok {
		return nil, fmt.Errorf("unknown magic %x", binary.LittleEndian.Uint32(h[:4]))
	}
	if v := r.order.Uint16(h[4:6]); v != 2 {
		return nil, fmt.Errorf("unknown major version %d", v)
	}
	if v := r.order.Uint16(h[6:8]); v != 4 {
		return nil, fmt.Errorf("unknown minor version %d", v)
	}
	r.snaplen = min(r.order.Uint32(h[16:20]), maxPacket) // more is a damaged header: a packet is never this long
	r.link = linkType(r.order.Uint32(h[20:24]))          // the upper 16 bits say FCS lengths
	return r, nil
}

func (r *pcapReader) next() ([]byte, time.Time, linkType, error) {
	if _, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
		return nil, time.Time{}, 0, err
	}
	o := r.order
	at := time.Unix(int64(o.Uint32(r.hdr[0:4])), int64(o.Uint32(r.hdr[4:8])*r.nanos)).UTC()
	caplen, length := o.Uint32(r.hdr[8:12]), o.Uint32(r.hdr[12:16])
	if caplen > r.snaplen {
		return nil, at, 0, fmt.Errorf("capture length exceeds snap length: %d > %d", caplen, r.snaplen)
	}
	if caplen > length {
		return nil, at, 0, fmt.Errorf("capture length exceeds original packet length: %d > %d", caplen, length)
	}
	if uint32(cap(r.buf)) < caplen {
		r.buf = make([]byte, max(caplen, r.snaplen))
	}
	data := r.buf[:caplen]
	if _, err := io.ReadFull(r.r, data); err != nil {
		return nil, at, 0, err
	}
	return data, at, r.link, nil
}

// pcapngReader reads a pcapng file.
type pcapngReader struct {
	r      *bufio.Reader
	order  binary.ByteOrder
	ifaces []ngIface
	head   [28]byte
	buf    []byte
}

// ngIface is an interface description: its link type, snapshot length
// and clock.
type ngIface struct {
	link      linkType
	snaplen   uint32
	unit      uint64 // timestamp units per second
	up, down  uint64 // nanoseconds per unit = up / down
	offsetSec uint64 // seconds added to every timestamp
}

// The pcapng block types read; the rest are skipped.
const (
	// ngSection, a section header's type, is the same in either byte
	// order: a pcapng file's first four bytes.
	ngSection   = 0x0A0D0D0A
	ngInterface = 1
	ngPacketOld = 2
	ngSimple    = 3
	ngEnhanced  = 6
	// ngMaxBlock bounds a block that is read whole, so that a damaged
	// length cannot make the reader allocate gigabytes.
	ngMaxBlock = maxPacket + 1<<16
	// ngByteOrder is a section header's byte-order magic, read in the
	// section's byte order.
	ngByteOrder = 0x1A2B3C4D
)

var errNgTorn = io.ErrUnexpectedEOF

// newPcapngReader reads the first section header.
func newPcapngReader(src io.Reader) (*pcapngReader, error) {
	r := &pcapngReader{r: bufio.NewReader(src), order: binary.LittleEndian}
	typ, body, err := r.block()
	if err != nil {
		return nil, err
	}
	if typ != ngSection {
		return nil, fmt.Errorf("unknown magic %x", typ)
	}
	if err := r.section(body); err != nil {
		return nil, err
	}
	return r, nil
}

// block reads a block's type and length, and returns the length of its
// body (what follows the type, the length and, in a section header, the
// byte-order magic; the trailing length included).
func (r *pcapngReader) block() (uint32, uint32, error) {
	if _, err := io.ReadFull(r.r, r.head[:8]); err != nil {
		return 0, 0, err
	}
	typ := r.order.Uint32(r.head[0:4])
	if binary.LittleEndian.Uint32(r.head[0:4]) == ngSection {
		typ = ngSection
		if _, err := io.ReadFull(r.r, r.head[8:12]); err != nil {
			return 0, 0, torn(err)
		}
		switch {
		case binary.BigEndian.Uint32(r.head[8:12]) == ngByteOrder:
			r.order = binary.BigEndian
		case binary.LittleEndian.Uint32(r.head[8:12]) == ngByteOrder:
			r.order = binary.LittleEndian
		default:
			return 0, 0, errors.New("wrong byte order value in section header")
		}
		n := r.order.Uint32(r.head[4:8])
		if n < 28 {
			return 0, 0, fmt.Errorf("a section header of %d bytes (at least 28)", n)
		}
		return typ, n - 12, nil
	}
	n := r.order.Uint32(r.head[4:8])
	if n < 12 {
		return 0, 0, fmt.Errorf("a block of %d bytes (at least 12)", n)
	}
	return typ, n - 8, nil
}

// torn makes an end of file inside a block an unexpected one.
func torn(err error) error {
	if err == io.EOF {
		return errNgTorn
	}
	return err
}

// skip discards n bytes of a block.
func (r *pcapngReader) skip(n uint32) error {
	_, err := r.r.Discard(int(n))
	return torn(err)
}

// section reads a section header's body: a new section has no
// interfaces yet.
func (r *pcapngReader) section(body uint32) error {
	if _, err := io.ReadFull(r.r, r.head[:12]); err != nil {
		return torn(err)
	}
	if maj, mnr := r.order.Uint16(r.head[0:2]), r.order.Uint16(r.head[2:4]); maj != 1 || mnr != 0 {
		return fmt.Errorf("pcapng version %d.%d (replayctl reads 1.0)", maj, mnr)
	}
	r.ifaces = r.ifaces[:0]
	return r.skip(body - 12)
}

// iface reads an interface description's body.
func (r *pcapngReader) iface(body uint32) error {
	if body < 12 || body > ngMaxBlock {
		return fmt.Errorf("an interface description of %d bytes", body+8)
	}
	b := make([]byte, body)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return torn(err)
	}
	f := ngIface{link: linkType(r.order.Uint16(b[0:2])), snaplen: r.order.Uint32(b[4:8])}
	resol := byte(6)
	for o := b[8 : len(b)-4]; len(o) >= 4; {
		code, n := r.order.Uint16(o[0:2]), int(r.order.Uint16(o[2:4]))
		if code == 0 || 4+n > len(o) {
			break
		}
		v := o[4 : 4+n]
		switch {
		case code == 9 && n >= 1: // if_tsresol
			resol = v[0]
		case code == 14 && n >= 8: // if_tsoffset
			f.offsetSec = r.order.Uint64(v)
		}
		o = o[min(len(o), 4+(n+3)&^3):]
	}
	if resol == 0 {
		resol = 6
	}
	f.unit = 1
	if resol&0x80 != 0 {
		if e := resol & 0x7F; e < 64 {
			f.unit = 1 << e
		} else {
			f.unit = 0
		}
	} else {
		for range resol {
			f.unit *= 10
		}
	}
	if f.unit == 0 {
		return fmt.Errorf("an interface's time resolution %#x cannot be read", resol)
	}
	f.up, f.down = 1, 1
	if f.unit < 1e9 {
		f.up = 1e9 / f.unit
	} else {
		f.down = f.unit / 1e9
	}
	r.ifaces = append(r.ifaces, f)
	return nil
}

// time converts an interface's timestamp.
func (r *pcapngReader) time(i int, hi, lo uint32) time.Time {
	f := &r.ifaces[i]
	ts := uint64(hi)<<32 | uint64(lo)
	return time.Unix(int64(ts/f.unit+f.offsetSec), int64(ts%f.unit*f.up/f.down)).UTC()
}

func (r *pcapngReader) next() ([]byte, time.Time, linkType, error) {
	for {
		typ, body, err := r.block()
		if err != nil {
			return nil, time.Time{}, 0, err
		}
		var at time.Time
		var caplen uint32
		var i int
		switch typ {
		case ngSection:
			if err := r.section(body); err != nil {
				return nil, at, 0, err
			}
			continue
		case ngInterface:
			if err := r.iface(body); err != nil {
				return nil, at, 0, err
			}
			continue
		case ngEnhanced, ngPacketOld:
			if body < 24 {
				return nil, at, 0, fmt.Errorf("a packet block of %d bytes", body+8)
			}
			h := r.head[8:28]
			if _, err := io.ReadFull(r.r, h); err != nil {
				return nil, at, 0, torn(err)
			}
			body -= 20
			id := r.order.Uint32(h[0:4])
			if typ == ngPacketOld {
				id = uint32(r.order.Uint16(h[0:2]))
			}
			if id >= uint32(len(r.ifaces)) {
				return nil, at, 0, fmt.Errorf("interface id %d not present in section (have only %d interfaces)", id, len(r.ifaces))
			}
			i = int(id)
			at = r.time(i, r.order.Uint32(h[4:8]), r.order.Uint32(h[8:12]))
			caplen = r.order.Uint32(h[12:16])
		case ngSimple:
			if body < 8 {
				return nil, at, 0, fmt.Errorf("a simple packet block of %d bytes", body+8)
			}
			h := r.head[8:12]
			if _, err := io.ReadFull(r.r, h); err != nil {
				return nil, at, 0, torn(err)
			}
			body -= 4
			if len(r.ifaces) == 0 {
				return nil, at, 0, errors.New("a packet before any interface")
			}
			caplen = r.order.Uint32(h)
			if s := r.ifaces[0].snaplen; s != 0 && caplen > s {
				caplen = s
			}
		default:
			if err := r.skip(body); err != nil {
				return nil, at, 0, err
			}
			continue
		}
		if caplen > body || caplen > maxPacket {
			return nil, at, 0, fmt.Errorf("a packet of %d bytes in a block of %d", caplen, body)
		}
		if uint32(cap(r.buf)) < caplen {
			r.buf = make([]byte, max(caplen, min(r.ifaces[i].snaplen, maxPacket)))
		}
		data := r.buf[:caplen]
		if _, err := io.ReadFull(r.r, data); err != nil {
			return nil, at, 0, torn(err)
		}
		if err := r.skip(body - caplen); err != nil {
			return nil, at, 0, err
		}
		return data, at, r.ifaces[i].link, nil
	}
}
