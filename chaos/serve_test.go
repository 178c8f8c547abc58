package chaos

import (
	"slices"
	"testing"
)

// TestServeKinds checks the one list of serve faults: each is carried by
// a distinct fault of run's, found back from it, and each of its names
// (its own and its other ones) reads as it and as no other.
func TestServeKinds(t *testing.T) {
	seen := map[string]ServeKind{}
	for _, k := range ServeKinds() {
		c, ok := k.Carrier()
		if !ok || !slices.Contains(Kinds(), c) {
			t.Errorf("%s: carrier %q, %v; want one of Kinds()", k, c, ok)
		}
		if back, ok := ServeKindOf(c); !ok || back != k {
			t.Errorf("ServeKindOf(%s) = %s, %v; want %s", c, back, ok, k)
		}
		if got, ok := ServeKindNamed(string(k)); !ok || got != k {
			t.Errorf("ServeKindNamed(%s) = %s, %v", k, got, ok)
		}
		if o, dup := seen[string(k)]; dup {
			t.Errorf("name %s is %s's and %s's", k, o, k)
		}
		seen[string(k)] = k
	}
	for _, s := range serveKinds {
		for _, a := range s.aliases {
			if o, dup := seen[a]; dup {
				t.Errorf("name %s is %s's and %s's", a, o, s.kind)
			}
			seen[a] = s.kind
			if got, ok := ServeKindNamed(a); !ok || got != s.kind {
				t.Errorf("ServeKindNamed(%s) = %s, %v; want %s", a, got, ok, s.kind)
			}
		}
	}
	if _, ok := ServeKindNamed("nope"); ok {
		t.Error("ServeKindNamed(nope) found one")
	}
	if _, ok := ServeKindOf(Drop); ok {
		t.Error("drop carries a serve fault; want none")
	}
	if _, ok := ServeKind("nope").Carrier(); ok {
		t.Error(`ServeKind("nope") has a carrier`)
	}
}
