package metrics

import (
	"sync"
	"sync/atomic"
)

// family is a set of series keyed by their label values, for one metric
// or several that share labels. Looking a series up takes no lock: the
// map is never changed once published; a new key copies it under mu
// (rare: a method, a fault kind, a verdict not seen before).
type family[T any] struct {
	m     atomic.Pointer[map[string]*T]
	mu    sync.Mutex // guards the copy-and-publish of a new key
	fresh func(key string) *T
	limit int    // keys at most; 0: no limit
	other string // the key counted past the limit
}

func newFamily[T any](fresh func(key string) *T, limit int, other string) *family[T] {
	f := &family[T]{fresh: fresh, limit: limit, other: other}
	empty := map[string]*T{}
	f.m.Store(&empty)
	return f
}

// get returns key's series, made when new: past the limit, other's.
func (f *family[T]) get(key string) *T {
	if s, ok := (*f.m.Load())[key]; ok {
		return s
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	old := *f.m.Load()
	if s, ok := old[key]; ok {
		return s
	}
	if f.limit > 0 && len(old) >= f.limit {
		key = f.other
		if s, ok := old[key]; ok {
			return s
		}
	}
	m := make(map[string]*T, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	s := f.fresh(key)
	m[key] = s
	f.m.Store(&m)
	return s
}

// snapshot is the series as they are now.
func (f *family[T]) snapshot() map[string]*T { return *f.m.Load() }
