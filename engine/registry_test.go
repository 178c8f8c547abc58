package engine

import (
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/session"
)

// The registry's list: a session removed twice, sessions removed while
// what all() gave is iterated, the last one removed, a session started
// again under the name of one that ended.
func TestRegistryRemoveEdges(t *testing.T) {
	env := &session.Env{}
	newMember := func(name string) *member {
		return &member{Actor: session.New(env, nil, name, time.Time{}), routed: -1}
	}
	names := func(ms []*member) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name())
		}
		return out
	}
	var r registry
	if r.first() != nil || len(r.all()) != 0 {
		t.Fatalf("empty registry: first %v, all %v", r.first(), r.all())
	}
	a, b, c := newMember("a"), newMember("b"), newMember("c")
	r.add(a)
	r.add(b)
	r.add(c)

	r.remove(b.Actor)
	r.remove(b.Actor) // twice: nothing more happens
	if got := names(r.all()); len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Fatalf("after b removed twice: all %v, want [a c]", got)
	}
	if r.get("b") != nil || r.get("a") != a {
		t.Fatalf("after b removed: get(b) %v, get(a) %v", r.get("b"), r.get("a"))
	}

	for _, m := range r.all() { // removal while iterating what all gave
		r.remove(m.Actor)
	}
	if r.first() != nil || len(r.all()) != 0 || r.get("a") != nil || r.get("c") != nil {
		t.Fatalf("after every one removed: first %v, all %v", r.first(), names(r.all()))
	}

	// The last session, started again under the same name.
	a2 := newMember("a")
	r.add(a2)
	r.remove(a.Actor) // the old actor: the new one stays
	if r.get("a") != a2 || r.first() != a2 || len(r.all()) != 1 {
		t.Fatalf("old a removed after a new a: get %v, first %v, all %v", r.get("a"), r.first(), names(r.all()))
	}
	r.remove(a2.Actor)
	if r.first() != nil || len(r.all()) != 0 || len(r.at) != 0 || r.order.Len() != 0 {
		t.Fatalf("after the last removed: first %v, all %v, at %d, order %d", r.first(), names(r.all()), len(r.at), r.order.Len())
	}
}
