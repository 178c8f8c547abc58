package tape

import (
	"encoding/binary"
	"math/bits"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// decodeWritten decodes a message line written as the Writer writes one
// (appendMessage) with no http, sse or other member:
//
//	{"type":"message","seq":N,"t_us":N[,"session":"S"],"dir":"c2s","msg":{…}}
//
// in one pass that reads the members where the Writer puts them and
// parses msg as it passes it (jsonrpc.ParseStrictAt). It reports false,
// having filled nothing, for any other line: a member elsewhere, white
// space, an escape in the session's name, a number written otherwise, a
// batch, msg not valid JSON; scanEnvelope and decodeMessage then decode
// it (and say what is wrong). What it decodes, they decode the same
// (FuzzDecodeWritten): the tape a recording writes is read without the
// general scan's member search.
func decodeWritten(line []byte, m *Message, session string, slab *slab) bool {
	const head = `{"type":"message","seq":`
	if len(line) < len(head) || string(line[:len(head)]) != head {
		return false
	}
	i := len(head)
	seq, i, ok := writtenCount(line, i)
	if !ok || !hasAt(line, i, `,"t_us":`) {
		return false
	}
	tus, i, ok := writtenCount(line, i+len(`,"t_us":`))
	if !ok {
		return false
	}
	name := ""
	if hasAt(line, i, `,"session":"`) {
		i += len(`,"session":"`)
		start := i
		for ; i < len(line) && line[i] != '"'; i++ {
			if c := line[i]; c < 0x20 || c == '\\' || c >= 0x80 {
				return false // decodeString's other path
			}
		}
		if i >= len(line) {
			return false
		}
		name = session
		if string(line[start:i]) != session {
			name = string(line[start:i])
		}
		i++
	}
	var dir Dir
	switch {
	case hasAt(line, i, `,"dir":"c2s","msg":`):
		dir = C2S
	case hasAt(line, i, `,"dir":"s2c","msg":`):
		dir = S2C
	default:
		return false
	}
	i += len(`,"dir":"c2s","msg":`)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	rpc, end, err := jsonrpc.ParseStrictAt(line, i)
	if end < 0 || end >= len(line) || line[end] != '}' || jsonscan.SkipSpace(line, end+1) != len(line) {
		return false
	}
	*m = Message{Seq: seq, TUS: tus, Session: name, Dir: dir, Msg: slab.clone(line[i:end])}
	if err == nil {
		rpc.Raw = m.Msg // the same bytes, copied
		m.rpc = jsonrpc.Keep(rpc)
	}
	return true
}

// hasAt reports whether line holds s at offset i.
func hasAt(line []byte, i int, s string) bool {
	return len(line)-i >= len(s) && string(line[i:i+len(s)]) == s
}

// writtenCount reads the integer at line[i:] as parseCount accepts it (1
// to 18 digits, no leading zero) and strconv.AppendInt writes it, and
// returns it and the offset after it; ok is false for anything else.
// The digits are read eight at a time (digitsAt).
func writtenCount(line []byte, i int) (n int64, end int, ok bool) {
	start := i
	for i+8 <= len(line) {
		v, d := digitsAt(line, i)
		n = n*pow10[d] + int64(v)
		if i += d; d < 8 || i-start > 18 {
			break
		}
	}
	if i+8 > len(line) { // the line's last bytes, one at a time
		for ; i < len(line) && line[i] >= '0' && line[i] <= '9' && i-start <= 18; i++ {
			n = n*10 + int64(line[i]-'0')
		}
	}
	if d := i - start; d == 0 || d > 18 || (d > 1 && line[start] == '0') {
		return 0, i, false
	}
	return n, i, true
}

// pow10 is 10 to the power of its index.
var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// digitsAt returns how many of the eight bytes at line[i:] are decimal
// digits before the first that is not (d), and their value, from one
// 64-bit word: a byte c is a digit when c^'0' is at most 9, that is
// when neither it nor it plus 6 reaches 0x10 (a carry out of a byte
// that is not a digit can only mark bytes after it: the first mark is
// exact). The d digits, moved to the word's top, are then summed in
// pairs, fours and eights (each step one multiply).
func digitsAt(line []byte, i int) (v uint64, d int) {
	const ones = 0x0101010101010101
	t := binary.LittleEndian.Uint64(line[i:]) ^ '0'*ones
	d = bits.TrailingZeros64((t|(t+6*ones))&(0xf0*ones)) >> 3
	if d == 0 {
		return 0, 0
	}
	t <<= 8 * (8 - d) // the first digit the lowest byte, zeros before it
	t = (t * (10<<8 + 1)) >> 8 & 0x00ff00ff00ff00ff
	t = (t * (100<<16 + 1)) >> 16 & 0x0000ffff0000ffff
	t = (t * (10000<<32 + 1)) >> 32
	return t, d
}
