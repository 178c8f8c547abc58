package transformer

import "testing"

func TestIDsFreshPerSession(t *testing.T) {
	x := NewIDs()
	steps := []struct{ session, want string }{
		{"s1", "1"}, {"s1", "2"}, {"s2", "1"}, {"s1", "3"}, {"s2", "2"},
	}
	for _, s := range steps {
		if got := string(x.Fresh(s.session)); got != s.want {
			t.Errorf("Fresh(%q) = %s, want %s", s.session, got, s.want)
		}
	}
}
