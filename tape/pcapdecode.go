package tape

import "encoding/binary"

// The packet decoders: from a link-layer header (Ethernet, 802.1Q and
// QinQ tags, BSD loopback, Linux cooked v1 and v2, raw IP) through IPv4 (IP in
// IP included; fragments refused) or IPv6 (a hop-by-hop header
// skipped) to a TCP segment. What is not TCP over IP is not decoded.

// tcpSegment is one decoded TCP segment. Its slices point into the
// packet.
type tcpSegment struct {
	src, dst         []byte // the IP addresses, 4 or 16 bytes
	srcPort, dstPort uint16
	seq, ack         uint32
	dataOffset       uint8 // in 32-bit words
	syn, ackf        bool
	fin, rst         bool
	payload          []byte
	// ipPayload is the length of the IP payload the IP header states
	// (TCP header included), or -1 when it does not state one.
	ipPayload int
	// fragment is set when the packet is an IPv4 fragment.
	fragment bool
}

// layer is a protocol layer the decoder knows.
type layer uint8

const (
	layerNone layer = iota
	layerEthernet
	layerLoopback
	layerSLL
	layerSLL2
	layerDot1Q
	layerIPv4
	layerIPv6
	layerTCP
)

// firstLayer returns the layer a packet of link type lt starts with;
// layerNone for a link type the importer does not read.
func firstLayer(data []byte, lt linkType) (layer, bool) {
	switch lt {
	case linkEthernet:
		return layerEthernet, true
	case linkNull, linkLoop:
		return layerLoopback, true
	case linkLinuxSLL:
		return layerSLL, true
	case linkSLL2:
		return layerSLL2, true
	case linkRaw, linkIPv4, linkIPv6, 12: // 12: raw IP on some systems
		if len(data) == 0 {
			return layerNone, true
		}
		return byVersion(data[0]), true
	}
	return layerNone, false
}

func byVersion(b byte) layer {
	switch b >> 4 {
	case 4:
		return layerIPv4
	case 6:
		return layerIPv6
	}
	return layerNone
}

func byEtherType(t uint16) layer {
	switch t {
	case 0x0800:
		return layerIPv4
	case 0x86DD:
		return layerIPv6
	case 0x8100, 0x88A8:
		return layerDot1Q
	}
	return layerNone
}

func byIPProtocol(p byte) layer {
	switch p {
	case 6:
		return layerTCP
	case 4, 94: // IP in IP
		return layerIPv4
	case 41:
		return layerIPv6
	}
	return layerNone
}

// decodeTCP decodes data, starting at layer l, into s. It reports
// whether the packet is a TCP segment over IP. A fragment stops the
// decoding with s.fragment set.
func decodeTCP(data []byte, l layer, s *tcpSegment) bool {
	be := binary.BigEndian
	*s = tcpSegment{ipPayload: -1}
	for {
		switch l {
		case layerEthernet:
			if len(data) < 14 {
				return false
			}
			t := be.Uint16(data[12:14])
			if t < 0x0600 { // an 802.3 length: LLC follows
				return false
			}
			data, l = data[14:], byEtherType(t)
		case layerLoopback:
			if len(data) < 4 {
				return false
			}
			var family uint32
			if data[0] == 0 && data[1] == 0 {
				family = be.Uint32(data[:4])
			} else {
				family = binary.LittleEndian.Uint32(data[:4])
			}
			switch family {
			case 2:
				l = layerIPv4
			case 10, 24, 28, 30: // Linux, BSD, FreeBSD, Darwin
				l = layerIPv6
			default:
				return false
			}
			data = data[4:]
		case layerSLL:
			if len(data) < 16 {
				return false
			}
			data, l = data[16:], byEtherType(be.Uint16(data[14:16]))
		case layerSLL2: // the protocol first, then what v1 has (and an interface index)
			if len(data) < 20 {
				return false
			}
			data, l = data[20:], byEtherType(be.Uint16(data[0:2]))
		case layerDot1Q:
			if len(data) < 4 {
				return false
			}
			data, l = data[4:], byEtherType(be.Uint16(data[2:4]))
		case layerIPv4:
			var ok bool
			if data, l, ok = decodeIPv4(data, s); !ok {
				return false
			}
		case layerIPv6:
			var ok bool
			if data, l, ok = decodeIPv6(data, s); !ok {
				return false
			}
		case layerTCP:
			return s.src != nil && decodeTCPHeader(data, s)
		default:
			return false
		}
	}
}

// decodeIPv4 decodes an IPv4 header and returns its payload and the
// layer in it.
func decodeIPv4(data []byte, s *tcpSegment) ([]byte, layer, bool) {
	if len(data) < 20 {
		return nil, 0, false
	}
	be := binary.BigEndian
	ihl := int(data[0]&0x0F) * 4
	length := int(be.Uint16(data[2:4]))
	if length == 0 { // segmentation offload: the length is the packet's
		length = len(data)
	}
	if length < 20 || ihl < 20 || ihl > length {
		return nil, 0, false
	}
	if len(data) > length {
		data = data[:length] // padding after the packet
	} else if ihl > len(data) {
		return nil, 0, false
	}
	if !optionsReadable(data[20:ihl], 3) {
		return nil, 0, false
	}
	s.src, s.dst = data[12:16], data[16:20]
	s.ipPayload = length - ihl
	if ff := be.Uint16(data[6:8]); ff&0x2000 != 0 || ff&0x1FFF != 0 { // more fragments, or an offset
		s.fragment = true
		return nil, 0, false
	}
	return data[ihl:], byIPProtocol(data[9]), true
}

// decodeIPv6 decodes an IPv6 header (and a hop-by-hop header after it)
// and returns its payload and the layer in it.
func decodeIPv6(data []byte, s *tcpSegment) ([]byte, layer, bool) {
	if len(data) < 40 {
		return nil, 0, false
	}
	length := int(binary.BigEndian.Uint16(data[4:6]))
	next := data[6]
	s.src, s.dst = data[8:24], data[24:40]
	payload := data[40:]
	if length > 0 && next == 6 {
		s.ipPayload = length
	}
	if length == 0 { // a jumbogram: not on a loopback or an Ethernet capture
		return nil, 0, false
	}
	payload = payload[:min(length, len(payload))]
	if next == 0 { // hop-by-hop options
		if len(payload) < 2 || int(payload[1]+1)*8 > len(payload) {
			return nil, 0, false
		}
		next, payload = payload[0], payload[int(payload[1]+1)*8:]
	}
	return payload, byIPProtocol(next), true
}

// decodeTCPHeader decodes a TCP header and its payload.
func decodeTCPHeader(data []byte, s *tcpSegment) bool {
	if len(data) < 20 {
		return false
	}
	be := binary.BigEndian
	s.srcPort, s.dstPort = be.Uint16(data[0:2]), be.Uint16(data[2:4])
	s.seq, s.ack = be.Uint32(data[4:8]), be.Uint32(data[8:12])
	s.dataOffset = data[12] >> 4
	f := data[13]
	s.fin, s.syn, s.rst, s.ackf = f&0x01 != 0, f&0x02 != 0, f&0x04 != 0, f&0x10 != 0
	start := int(s.dataOffset) * 4
	if start < 20 || start > len(data) {
		return false
	}
	if !optionsReadable(data[20:start], 2) {
		return false
	}
	s.payload = data[start:]
	return true
}

// optionsReadable reports whether the options of an IPv4 or TCP header
// can be walked: end of list (0), no-operation (1), or a kind with a
// length of at least least bytes that stays within o.
func optionsReadable(o []byte, least byte) bool {
	for len(o) > 0 {
		switch o[0] {
		case 0:
			return true
		case 1:
			o = o[1:]
		default:
			if len(o) < 2 || o[1] < least || int(o[1]) > len(o) {
				return false
			}
			o = o[o[1]:]
		}
	}
	return true
}
