package tape

import (
	"sort"
	"time"
)

// TCP reassembly for the pcap importer: each direction of a connection
// is a halfStream that puts the segments captured back into the order
// of their sequence numbers, drops what was captured twice
// (retransmissions, and loopback captures that see a packet on both
// ends), and hands the bytes on in order, each run of bytes with the
// time of the packet that brought it.

// maxOutOfOrder bounds the bytes a halfStream holds while it waits for
// a segment that was not captured: past it, the missing bytes are taken
// as lost (a gap) and the stream goes on after them.
const maxOutOfOrder = 4 << 20

// segment is a run of a stream's bytes, from sequence number seq.
type segment struct {
	seq  uint32
	data []byte
	at   time.Time
}

// halfStream is one direction of a TCP connection.
type halfStream struct {
	started bool   // the first byte's sequence number is known
	next    uint32 // the sequence number of the next byte to hand on
	held    []segment
	heldLen int
	closed  bool // FIN or RST seen
	// ack is the highest acknowledgment the other end sent for this
	// direction's bytes (hasAck once it has sent one): bytes before it
	// that the capture lacks were received, so they will not come again.
	ack    uint32
	hasAck bool
	// deliver receives the bytes in order; gap says that bytes were lost
	// before the next ones.
	deliver func(data []byte, at time.Time)
	gap     func()
}

// seqAfter reports whether a comes after b, modulo 2³².
func seqAfter(a, b uint32) bool { return int32(a-b) > 0 }

// syn starts the stream at a SYN's sequence number (the data starts one
// after it).
func (h *halfStream) syn(seq uint32) {
	if !h.started {
		h.started, h.next = true, seq+1
	}
}

// add takes one captured segment's payload.
func (h *halfStream) add(seq uint32, data []byte, at time.Time) {
	if len(data) == 0 || h.closed {
		return
	}
	if !h.started { // the connection began before the capture
		h.started, h.next = true, seq
		h.gap()
	}
	end := seq + uint32(len(data))
	if !seqAfter(end, h.next) {
		return // captured before (a retransmission)
	}
	if seqAfter(h.next, seq) { // partly captured before
		data = data[h.next-seq:]
		seq = h.next
	}
	if seq != h.next {
		h.hold(seq, data, at)
		h.giveUp()
		return
	}
	h.deliver(data, at)
	h.next = end
	h.drain(at)
}

// hold keeps a segment that came before the bytes in front of it; when
// too much is held, the missing bytes are given up for lost.
func (h *halfStream) hold(seq uint32, data []byte, at time.Time) {
	h.held = append(h.held, segment{seq: seq, data: append([]byte(nil), data...), at: at})
	h.heldLen += len(data)
	sort.SliceStable(h.held, func(i, j int) bool { return seqAfter(h.held[j].seq, h.held[i].seq) })
	if h.heldLen > maxOutOfOrder {
		h.skip()
	}
}

// acked takes an acknowledgment the other end sent.
func (h *halfStream) acked(ack uint32) {
	if !h.hasAck || seqAfter(ack, h.ack) {
		h.ack, h.hasAck = ack, true
	}
	h.giveUp()
}

// giveUp skips the bytes missing before the first held segment once the
// other end has acknowledged them: the capture lost them (tcpdump drops
// packets when it cannot keep up), and no retransmission will bring them.
func (h *halfStream) giveUp() {
	if h.hasAck && len(h.held) > 0 && !seqAfter(h.held[0].seq, h.ack) {
		h.skip()
	}
}

// drain hands on the held segments that now follow on, at the time of
// the packet that let them (at), or their own when later.
func (h *halfStream) drain(at time.Time) {
	for len(h.held) > 0 {
		s := h.held[0]
		if seqAfter(s.seq, h.next) {
			return
		}
		h.held = h.held[1:]
		h.heldLen -= len(s.data)
		end := s.seq + uint32(len(s.data))
		if !seqAfter(end, h.next) {
			continue
		}
		data := s.data[h.next-s.seq:]
		h.deliver(data, later(s.at, at))
		h.next = end
	}
}

// skip gives up the bytes missing before the first held segment.
func (h *halfStream) skip() {
	if len(h.held) == 0 {
		return
	}
	h.gap()
	h.next = h.held[0].seq
	h.drain(h.held[0].at)
}

// skipTo gives up the bytes before seq: they were not captured.
func (h *halfStream) skipTo(seq uint32) {
	if !h.started || h.closed || !seqAfter(seq, h.next) {
		return
	}
	h.gap()
	h.next = seq
	if len(h.held) > 0 {
		h.drain(h.held[0].at)
	}
}

// finish hands on what is held, past the bytes never captured, at the
// end of the stream or of the capture.
func (h *halfStream) finish() {
	for len(h.held) > 0 {
		h.skip()
	}
	h.closed = true
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
