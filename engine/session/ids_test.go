package session

import (
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// Two ids key the same request exactly when their jsonrpc.IDKey is the
// same, whether they are plain integers (keyed by value) or not.
func TestIDKeyAsIDKey(t *testing.T) {
	ids := []string{
		"0", "1", " 1", "1 ", "\t1\n", "7", "10", "01", "-1", "-0", "1.0", "1e2", "1E2",
		`"1"`, `"\u0031"`, `"01"`, `"a"`, `"\u0061"`, `"a\"b"`, "null", "true", "",
		"999999999999999999", "1000000000000000000", "18446744073709551615", "18446744073709551616",
		"123456789012345678", " 123456789012345678 ",
	}
	for _, a := range ids {
		ka := keyOf([]byte(a))
		if got, want := ka.String(), jsonrpc.IDKey([]byte(a)); got != want {
			t.Errorf("keyOf(%q).String() = %q, want IDKey's %q", a, got, want)
		}
		m := newPends()
		p := &pend{key: ka}
		m.put(ka, p)
		for _, b := range ids {
			same := jsonrpc.IDKey([]byte(a)) == jsonrpc.IDKey([]byte(b))
			if got := keyOf([]byte(b)) == ka; got != same {
				t.Errorf("keyOf(%q) == keyOf(%q): got %v, want %v (IDKey)", b, a, got, same)
			}
			if got := m.get([]byte(b)) == p; got != same {
				t.Errorf("put %q, get %q: found %v, want %v", a, b, got, same)
			}
			kb, kc := keysOf([]byte(a), []byte(b))
			if kb != ka || kc != keyOf([]byte(b)) {
				t.Errorf("keysOf(%q, %q) = %v, %v; want %v, %v", a, b, kb, kc, ka, keyOf([]byte(b)))
			}
		}
		if m.len() != 1 {
			t.Errorf("put %q: len %d, want 1", a, m.len())
		}
		m.del(ka)
		if m.len() != 0 || m.get([]byte(a)) != nil {
			t.Errorf("del %q: len %d, still found %v", a, m.len(), m.get([]byte(a)) != nil)
		}
	}
}

// all yields every request once, integers and strings, and a range may
// delete the one it is given.
func TestPendsAll(t *testing.T) {
	m := newPends()
	want := map[*pend]bool{}
	for _, id := range []string{"1", "2", `"x"`, "3.5", "40"} {
		p := &pend{key: keyOf([]byte(id))}
		m.put(p.key, p)
		want[p] = true
	}
	seen := map[*pend]int{}
	for p := range m.all() {
		seen[p]++
		m.del(p.key)
	}
	for p := range want {
		if seen[p] != 1 {
			t.Errorf("%v yielded %d times, want 1", p.key, seen[p])
		}
	}
	if len(seen) != len(want) || m.len() != 0 {
		t.Errorf("yielded %d, left %d; want %d, 0", len(seen), m.len(), len(want))
	}
}

// A request's ids are keyed with no allocation when they are plain
// integers (the fresh ids of the transform stage, most recorded ones).
func TestPlainIDsKeyedWithoutAllocating(t *testing.T) {
	m := newPends()
	sent, rec := []byte("100042"), []byte("42")
	p := &pend{}
	n := testing.AllocsPerRun(100, func() {
		p.key, p.recKey = keysOf(sent, rec)
		m.put(p.key, p)
		if m.get(sent) != p {
			t.Fatal("not found")
		}
		m.del(p.key)
	})
	if n != 0 {
		t.Errorf("%v allocations keying a request by integer ids, want 0", n)
	}
}
