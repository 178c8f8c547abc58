package session

// Requests in flight by id: a plain integer id (most: the fresh ids of
// the transform stage, and most recorded ones) is keyed by its value,
// with no string made for it.

import (
	"bytes"
	"iter"
	"strconv"

	"github.com/replayctl/replayctl/jsonrpc"
)

// idKey is a request id as a map key. Two ids have the same key exactly
// when their jsonrpc.IDKey is the same: an id that is a plain integer
// (plainInt) is keyed by its value, any other by its IDKey.
type idKey struct {
	num uint64 // the integer plus one; 0: the id is not a plain integer
	str string // the IDKey of an id that is not a plain integer
}

// keyOf is id's key.
func keyOf(id []byte) idKey {
	if n, ok := plainInt(id); ok {
		return idKey{num: n + 1}
	}
	return idKey{str: jsonrpc.IDKey(id)}
}

// keysOf is keyOf(a) and keyOf(b); strings for both in one allocation
// (jsonrpc.IDKeys) when neither is a plain integer.
func keysOf(a, b []byte) (idKey, idKey) {
	na, aok := plainInt(a)
	nb, bok := plainInt(b)
	switch {
	case aok && bok:
		return idKey{num: na + 1}, idKey{num: nb + 1}
	case aok:
		return idKey{num: na + 1}, idKey{str: jsonrpc.IDKey(b)}
	case bok:
		return idKey{str: jsonrpc.IDKey(a)}, idKey{num: nb + 1}
	}
	ka, kb := jsonrpc.IDKeys(a, b)
	return idKey{str: ka}, idKey{str: kb}
}

// String is the key's jsonrpc.IDKey: a plain integer's is its digits.
func (k idKey) String() string {
	if k.num == 0 {
		return k.str
	}
	return strconv.FormatUint(k.num-1, 10)
}

// plainInt is the value of id, trimmed of white space, when it is a JSON
// integer written plainly: digits only, without a leading zero (but for
// 0 itself), at most 18 of them (so below 10^18, and its value plus one
// fits a uint64). Such an id's IDKey is its digits, so its value keys it
// exactly: no other id has the same IDKey. Anything else (a string, a
// negative or fractional number, an exponent, a longer number) is not.
func plainInt(id []byte) (uint64, bool) {
	if n := len(id); n > 0 && (isSpace(id[0]) || isSpace(id[n-1])) {
		id = bytes.TrimSpace(id)
	}
	if len(id) == 0 || len(id) > 18 || (id[0] == '0' && len(id) > 1) {
		return 0, false
	}
	var v uint64
	for _, c := range id {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// pends maps ids to requests in flight: plain integers in one map,
// other ids in another (made when one first comes).
type pends struct {
	nums map[uint64]*pend
	strs map[string]*pend
}

func newPends() pends { return pends{nums: make(map[uint64]*pend)} }

// at is the request keyed k, or nil.
func (m *pends) at(k idKey) *pend {
	if k.num != 0 {
		return m.nums[k.num]
	}
	return m.strs[k.str]
}

// get is the request with id (raw bytes, as a message carries it), or
// nil.
func (m *pends) get(id []byte) *pend {
	if n, ok := plainInt(id); ok {
		return m.nums[n+1]
	}
	if len(m.strs) == 0 {
		return nil
	}
	if p, ok := m.strs[string(id)]; ok { // the bytes as they are: no allocation
		return p
	}
	return m.strs[jsonrpc.IDKey(id)]
}

// put keys p by k.
func (m *pends) put(k idKey, p *pend) {
	if k.num != 0 {
		m.nums[k.num] = p
		return
	}
	if m.strs == nil {
		m.strs = make(map[string]*pend)
	}
	m.strs[k.str] = p
}

// del forgets the request keyed k.
func (m *pends) del(k idKey) {
	if k.num != 0 {
		delete(m.nums, k.num)
		return
	}
	delete(m.strs, k.str)
}

// len is the number of requests kept.
func (m *pends) len() int { return len(m.nums) + len(m.strs) }

// all yields every request kept, in no order. The caller may del the one
// yielded (as a range over a map may delete).
func (m *pends) all() iter.Seq[*pend] {
	return func(yield func(*pend) bool) {
		for _, p := range m.nums {
			if !yield(p) {
				return
			}
		}
		for _, p := range m.strs {
			if !yield(p) {
				return
			}
		}
	}
}
