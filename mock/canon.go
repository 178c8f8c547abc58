package mock

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"slices"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// hashSeed is the process's: hashes are compared only within one process.
var hashSeed = maphash.MakeSeed()

// noParams is the hash of a request without params.
const noParams = 0

// anyParams stands, in an entry, for recorded params that a redaction
// left a marker in (tape.HasMarker): the recorded value is gone, so any
// params of the same method match, in recorded order.
const anyParams = 2

// canon hashes params in a canonical form, so that two params equal as
// JSON (key order, spacing and string escapes aside) hash the same, and
// the matcher compares 8 bytes rather than decoding both sides. The form
// is the value without white space, object members sorted by their
// decoded names (the last of equal names kept, as a decoder keeps it),
// strings decoded and written with only '"', '\\' and control characters
// escaped, numbers as written. Equal hashes stand for equal params: two
// different params collide with odds of 2⁻⁶⁴. Params that are not JSON
// hash their bytes, and so match only the same bytes. A canon holds
// scratch space: one per goroutine.
type canon struct {
	buf  []byte
	mems []member
	// emptied is set by object when every member of the object it wrote
	// was left out: its parent leaves the object out too, so that
	// {"_meta":{"progressToken":1}} with progressToken volatile asks
	// what {} does.
	emptied bool
}

// member is an object member being sorted: its decoded name and where its
// value starts in the document.
type member struct {
	key []byte
	val int
}

// hash returns the hash of p's canonical form, noParams for empty p.
func (c *canon) hash(p []byte) uint64 { return c.hashSkip(p, nil) }

// hashSkip is hash with the members at skip's paths left out, as if they
// were not there (a Server's volatile fields). A nil skip leaves nothing
// out.
func (c *canon) hashSkip(p []byte, skip *trie) uint64 {
	if len(p) == 0 {
		return noParams
	}
	c.buf, c.mems = c.buf[:0], c.mems[:0]
	i, ok := c.value(p, jsonscan.SkipSpace(p, 0), skip)
	var h uint64
	if ok && jsonscan.SkipSpace(p, i) == len(p) {
		if skip != nil && string(c.buf) == "{}" { // with volatile fields, {} asks what no params ask
			return noParams
		}
		h = maphash.Bytes(hashSeed, c.buf)
	} else { // not JSON: its bytes, marked so as to differ from any JSON's form
		var mh maphash.Hash
		mh.SetSeed(hashSeed)
		mh.WriteByte(0)
		mh.Write(p)
		h = mh.Sum64()
	}
	if h == noParams || h == anyParams {
		h = 1
	}
	if cap(c.buf) > 64<<10 { // do not keep a huge request's scratch
		c.buf, c.mems = nil, nil
	}
	clear(c.mems[:cap(c.mems)]) // drop the names, which may point into p
	return h
}

// rawHash is the hash of params' bytes as they are (odd), or noRaw for
// none: equal hashes stand for the same bytes (and so for equal
// canonical forms). It is never 0, which an entry keeps for "unknown".
func rawHash(p []byte) uint64 {
	if len(p) == 0 {
		return noRaw
	}
	return maphash.Bytes(hashSeed, p) | 1
}

// noRaw is rawHash's of no params.
const noRaw = 2

// value writes the canonical form of the value at p[i] and returns the
// offset past it; false if p is not JSON there. skip is the value's node
// of the paths left out (nil: none).
func (c *canon) value(p []byte, i int, skip *trie) (int, bool) {
	if i >= len(p) {
		return i, false
	}
	switch b := p[i]; {
	case b == '{':
		return c.object(p, i, skip)
	case b == '[':
		c.buf = append(c.buf, '[')
		i = jsonscan.SkipSpace(p, i+1)
		if i < len(p) && p[i] == ']' {
			c.buf = append(c.buf, ']')
			return i + 1, true
		}
		for k := 0; ; k++ {
			var ok bool
			el := skip.element(k)
			if el != nil && el.leaf { // left out: its bytes skipped, a placeholder kept so that indexes stay
				c.buf = append(c.buf, '_')
				j, err := jsonscan.SkipValue(p, i)
				if err != nil {
					return j, false
				}
				i = j
			} else if i, ok = c.value(p, i, el); !ok {
				return i, false
			}
			if i = jsonscan.SkipSpace(p, i); i >= len(p) {
				return i, false
			}
			switch p[i] {
			case ',':
				c.buf = append(c.buf, ',')
				i = jsonscan.SkipSpace(p, i+1)
			case ']':
				c.buf = append(c.buf, ']')
				return i + 1, true
			default:
				return i, false
			}
		}
	case b == '"':
		s, j, ok := decodeString(p, i)
		if ok {
			c.buf = appendString(c.buf, s)
		}
		return j, ok
	case b == 't' || b == 'f' || b == 'n' || b == '-' || (b >= '0' && b <= '9'):
		j, err := jsonscan.SkipValue(p, i)
		if err != nil {
			return j, false
		}
		c.buf = append(c.buf, p[i:j]...)
		return j, true
	}
	return i, false
}

// object writes the canonical form of the object at p[i], without the
// members skip has as leaves.
func (c *canon) object(p []byte, i int, skip *trie) (int, bool) {
	base := len(c.mems)
	defer func() { c.mems = c.mems[:base] }()
	i = jsonscan.SkipSpace(p, i+1)
	if i < len(p) && p[i] == '}' {
		c.buf = append(c.buf, '{', '}')
		return i + 1, true
	}
	for {
		if i >= len(p) || p[i] != '"' {
			return i, false
		}
		key, j, ok := decodeString(p, i)
		if !ok {
			return j, false
		}
		if j = jsonscan.SkipSpace(p, j); j >= len(p) || p[j] != ':' {
			return j, false
		}
		v := jsonscan.SkipSpace(p, j+1)
		end, err := jsonscan.SkipValue(p, v)
		if err != nil {
			return end, false
		}
		c.mems = append(c.mems, member{key, v})
		if i = jsonscan.SkipSpace(p, end); i >= len(p) {
			return i, false
		}
		if p[i] == '}' {
			i++
			break
		}
		if p[i] != ',' {
			return i, false
		}
		i = jsonscan.SkipSpace(p, i+1)
	}
	mems := c.mems[base:]
	sorted := true
	for k := 1; k < len(mems) && sorted; k++ {
		sorted = bytes.Compare(mems[k-1].key, mems[k].key) < 0
	}
	if !sorted {
		slices.SortStableFunc(mems, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		kept := mems[:0]
		for k, m := range mems { // of equal names, the last one
			if k+1 < len(mems) && bytes.Equal(m.key, mems[k+1].key) {
				continue
			}
			kept = append(kept, m)
		}
		mems = kept
		c.mems = c.mems[:base+len(kept)]
	}
	c.buf = append(c.buf, '{')
	first := true
	for k := range mems {
		m := c.mems[base+k] // c.mems, not mems: nested objects may grow it
		child := skip.member(m.key)
		if child != nil && child.leaf {
			continue
		}
		mark := len(c.buf)
		if !first {
			c.buf = append(c.buf, ',')
		}
		c.buf = appendString(c.buf, m.key)
		c.buf = append(c.buf, ':')
		c.emptied = false
		if _, ok := c.value(p, m.val, child); !ok {
			return i, false
		}
		if c.emptied { // an object all of whose members were left out
			c.buf = c.buf[:mark]
			c.emptied = false
			continue
		}
		first = false
	}
	c.buf = append(c.buf, '}')
	c.emptied = first && skip != nil && len(mems) > 0
	return i, true
}

// decodeString returns the decoded string at p[i] (a quote) and the offset
// past it. A string without escapes is returned as part of p; one with
// escapes or bytes that are not UTF-8 is decoded as encoding/json does.
func decodeString(p []byte, i int) ([]byte, int, bool) {
	end := bytes.IndexByte(p[i+1:], '"')
	if end < 0 {
		return nil, len(p), false
	}
	raw := p[i+1 : i+1+end]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return raw, i + 2 + end, true
	}
	j, err := jsonscan.SkipValue(p, i)
	if err != nil {
		return nil, j, false
	}
	var s string
	if json.Unmarshal(p[i:j], &s) != nil {
		return nil, j, false
	}
	return []byte(s), j, true
}

// appendString writes s quoted, escaping only what must be.
func appendString(dst, s []byte) []byte {
	dst = append(dst, '"')
	for _, b := range s {
		switch {
		case b == '"' || b == '\\':
			dst = append(dst, '\\', b)
		case b < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[b>>4], "0123456789abcdef"[b&15])
		default:
			dst = append(dst, b)
		}
	}
	return append(dst, '"')
}
