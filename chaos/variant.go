package chaos

import (
	"fmt"
	"time"
)

// How Param is read. The low bits (Param mod the number of variants) pick
// the variant; bits 8 and up size it:
//
//	malformed       variant; truncated JSON: cut after 1 + (Param>>8) mod (len-1) bytes
//	invalid         variant
//	unknown-method  the new name's suffix: (Param>>16) as 8 hex digits
//	bad-params      variant; "required field removed" without arguments: member (Param>>8) mod n
//	reorder         window 2 + (Param>>8) mod 4: 2..5 messages
//	burst           K = 2 + (Param>>8) mod 7: 2..8 messages
//	slow-write      chunk slowChunks[(Param>>8) mod 6] bytes, pause slowPauses[(Param>>16) mod 6]
//	disconnect      variant: mid-write, or after the write before the answer
//	network-error   variant: reset as the request is written, or refused before it
//	invalid-response, error-response  variant

// variants lists each kind's variants, in words; Fault.Detail is one of
// them (or, for sized kinds, built from the sizes below).
var variants = map[Kind][]string{
	Malformed:       {"not JSON", "truncated JSON", "trailing comma", "binary garbage"},
	Invalid:         {"missing method", "id is an object", `jsonrpc is "1.0"`, "empty batch"},
	UnknownMethod:   {"method renamed to a nonexistent one"},
	BadParams:       {"types swapped", "required field removed", "huge string (1 MB)", "deep nesting (10000 levels)"},
	DuplicateID:     {"id of the previous request"},
	Duplicate:       {"sent twice"},
	Drop:            {"not sent"},
	Cancel:          {"notifications/cancelled right after the request"},
	Disconnect:      {"closed mid-write", "closed after the write, before the answer"},
	Timeout:         {"answer withheld past the deadline"},
	NetworkError:    {"connection reset as the request was written", "connection refused before the request"},
	InvalidResponse: {"not JSON", "truncated", "wrong id", `jsonrpc is "1.0"`},
	ErrorResponse:   {"-32603 internal error", "-32000 server error"},
}

// The variants' indexes, where code switches on them.
const (
	malformedNotJSON = iota
	malformedTruncated
	malformedTrailingComma
	malformedBinary
)

const (
	invalidNoMethod = iota
	invalidObjectID
	invalidVersion
	invalidEmptyBatch
)

const (
	badTypes = iota
	badDropField
	badHugeString
	badDeepNesting
)

const (
	// HugeStringLen is the length of bad-params' huge string: 1 MiB.
	HugeStringLen = 1 << 20
	// DeepNesting is how deep bad-params' nested value goes.
	DeepNesting = 10000
)

var (
	slowChunks = [...]int{1, 2, 3, 8, 16, 64}
	slowPauses = [...]time.Duration{
		time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
		10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	}
)

// Precomputed details of the sized kinds, so that Decide does not allocate.
var (
	burstDetails   [7]string
	reorderDetails [4]string
	slowDetails    [len(slowChunks)][len(slowPauses)]string
)

func init() {
	for i := range burstDetails {
		burstDetails[i] = fmt.Sprintf("next %d messages at once", i+2)
	}
	for i := range reorderDetails {
		reorderDetails[i] = fmt.Sprintf("shuffled within a window of %d", i+2)
	}
	for i, c := range slowChunks {
		for j, d := range slowPauses {
			slowDetails[i][j] = fmt.Sprintf("%d-byte chunks, %v pauses", c, d)
		}
	}
}

// variantList is variants indexed by the kind's place in kinds, for Decide
// (a map lookup would cost it a third of its time).
var variantList [len(kinds)][]string

func init() {
	for i, k := range kinds {
		variantList[i] = variants[k]
	}
}

// variant returns which of k's variants param picks.
func variant(k Kind, param uint64) int {
	n := len(variants[k])
	if n <= 1 {
		return 0
	}
	return int(param % uint64(n))
}

// detail is Fault.Detail for kind k and param.
func detail(k Kind, param uint64) string {
	return detailAt(k.index(), k, param)
}

// detailAt is detail for k at kinds[i] (i < 0: an unknown kind).
func detailAt(i int, k Kind, param uint64) string {
	switch k {
	case Burst:
		return burstDetails[(param>>8)%uint64(len(burstDetails))]
	case Reorder:
		return reorderDetails[(param>>8)%uint64(len(reorderDetails))]
	case SlowWrite:
		return slowDetails[(param>>8)%uint64(len(slowChunks))][(param>>16)%uint64(len(slowPauses))]
	}
	if i < 0 || len(variantList[i]) == 0 {
		return ""
	}
	v := variantList[i]
	return v[param%uint64(len(v))]
}

// Variant returns the index of f's variant among its kind's (0 for kinds
// with one), as listed in the package doc.
func (f Fault) Variant() int { return variant(f.Kind, f.Param) }

// BurstSize is K for a burst fault: this message and the next K-1 of its
// session are sent at once, without waiting for their due times. 2..8.
func (f Fault) BurstSize() int { return 2 + int((f.Param>>8)%uint64(len(burstDetails))) }

// ReorderWindow is the window of a reorder fault: this message and the
// next W-1 of its session are sent in an order shuffled by Shuffle. 2..5.
func (f Fault) ReorderWindow() int { return 2 + int((f.Param>>8)%uint64(len(reorderDetails))) }

// SlowWrite returns how a slow-write fault writes its message: chunk bytes
// at a time (1..64), with pause between chunks (1ms..50ms).
func (f Fault) SlowWrite() (chunk int, pause time.Duration) {
	return slowChunks[(f.Param>>8)%uint64(len(slowChunks))], slowPauses[(f.Param>>16)%uint64(len(slowPauses))]
}

// DisconnectAt says where a disconnect fault closes the connection, for a
// message of n bytes: after writing the first cut bytes (mid-write: n/2,
// at least 1 when n > 0), or after writing all n and before reading the
// answer (cut == n).
func (f Fault) DisconnectAt(n int) (cut int) {
	if f.Variant() == 0 && n > 1 {
		return n / 2
	}
	return n
}

// Shuffle returns the order in which a reorder fault sends a window of n
// messages: a permutation of 0..n-1 from Param (Fisher–Yates), never the
// identity when n ≥ 2.
func (f Fault) Shuffle(n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	h := f.Param
	for i := n - 1; i > 0; i-- {
		h = mix(h + golden)
		j := int(h % uint64(i+1))
		order[i], order[j] = order[j], order[i]
	}
	if n >= 2 {
		identity := true
		for i, v := range order {
			if v != i {
				identity = false
				break
			}
		}
		if identity { // a reorder that keeps the order is no fault: swap the first two
			order[0], order[1] = order[1], order[0]
		}
	}
	return order
}
