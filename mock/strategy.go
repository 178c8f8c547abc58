package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Strategy says which recorded request a Server answers a live one with.
// Whatever the strategy, a live request is answered only by a recorded
// request of the same method, and identical repeated calls get their
// recorded answers in recorded order.
type Strategy string

// The matching strategies.
const (
	// Exact: the params equal the recorded ones as JSON (member order,
	// spacing and string escapes aside), volatile fields included.
	Exact Strategy = "exact"
	// Method: the first recorded request of the method not answered yet,
	// whatever its params.
	Method Strategy = "method"
	// MethodAndParams (the default): the params equal the recorded ones
	// as JSON once the volatile fields (DefaultVolatile, WithVolatile)
	// are left out of both; an object left empty counts as absent, and
	// params {} as no params. Member order, spacing and string escapes
	// do not matter; numbers compare as written (1 is not 1.0).
	MethodAndParams Strategy = "method_and_params"
	// Subset: every member of the live params, volatile fields left out,
	// is in the recorded params with an equal value; objects are compared
	// member by member so (recursively), arrays element by element with
	// the same length, numbers by value.
	Subset Strategy = "subset"
	// Sequential: the next recorded request not answered yet, whatever
	// its params; its method must be the live one's (answering a
	// tools/list with a recorded tools/call would give the client an
	// answer of the wrong shape, so that is a miss). A ping the tape
	// does not have next is answered without moving on.
	Sequential Strategy = "sequential"
)

// Strategies lists the strategies, the default first.
func Strategies() []Strategy {
	return []Strategy{MethodAndParams, Exact, Method, Subset, Sequential}
}

// ParseStrategy reads a strategy name; "" is MethodAndParams, and "-"
// may stand for "_". The error lists the known names.
func ParseStrategy(s string) (Strategy, error) {
	st := Strategy(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"))
	if st == "" {
		return MethodAndParams, nil
	}
	for _, k := range Strategies() {
		if st == k {
			return st, nil
		}
	}
	names := make([]string, 0, 5)
	for _, k := range Strategies() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown matching strategy %q; known: %s", s, strings.Join(names, ", "))
}

// usesHash reports whether the strategy compares params hashes.
func (s Strategy) usesHash() bool { return s == Exact || s == MethodAndParams }

// contains reports whether the JSON value rec contains live, as the
// subset strategy means it: live's object members (but those skip has as
// leaves) are in rec with values rec contains; arrays have the same
// length and each element of rec contains live's; other values are equal
// (numbers by value, strings as decoded). Values that are not JSON
// contain each other only when their bytes are equal.
func contains(rec, live []byte, skip *trie) bool {
	var r, l any
	if decodeNumbers(rec, &r) != nil || decodeNumbers(live, &l) != nil {
		return bytes.Equal(rec, live)
	}
	return containsValue(r, l, skip)
}

func decodeNumbers(b []byte, v *any) error {
	if len(bytes.TrimSpace(b)) == 0 {
		*v = map[string]any{}
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

func containsValue(rec, live any, skip *trie) bool {
	switch l := live.(type) {
	case map[string]any:
		r, ok := rec.(map[string]any)
		if !ok {
			return false
		}
		for k, lv := range l {
			child := skip.member([]byte(k))
			if child != nil && child.leaf {
				continue
			}
			rv, ok := r[k]
			if !ok {
				if m, isObj := lv.(map[string]any); isObj && emptiedBy(m, child) {
					continue // an object of volatile members only: as if absent
				}
				return false
			}
			if !containsValue(rv, lv, child) {
				return false
			}
		}
		return true
	case []any:
		r, ok := rec.([]any)
		if !ok || len(r) != len(l) {
			return false
		}
		for i := range l {
			if !containsValue(r[i], l[i], skip.element(i)) {
				return false
			}
		}
		return true
	case json.Number:
		r, ok := rec.(json.Number)
		if !ok {
			return false
		}
		if r == l {
			return true
		}
		rf, err1 := r.Float64()
		lf, err2 := l.Float64()
		return err1 == nil && err2 == nil && rf == lf
	default: // string, bool, nil
		return rec == live
	}
}

// emptiedBy reports whether every member of m is left out by skip.
func emptiedBy(m map[string]any, skip *trie) bool {
	if skip == nil || len(m) == 0 {
		return false
	}
	for k, v := range m {
		c := skip.member([]byte(k))
		if c != nil && c.leaf {
			continue
		}
		if sub, ok := v.(map[string]any); ok && emptiedBy(sub, c) {
			continue
		}
		return false
	}
	return true
}
