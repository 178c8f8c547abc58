package mock

import (
	"strings"
	"testing"

	"github.com/replayctl/replayctl/chaos"
)

// TestServerChaosSlowWording: a slow-write fault's detail says its piece
// as a person reads it, "1 byte at a time" for a piece of one byte,
// whether the listener writes in pieces or not.
func TestServerChaosSlowWording(t *testing.T) {
	for _, tc := range []struct {
		param uint64 // its piece: the (param>>8)-th of chaos's sizes
		chunk int
		want  string
	}{
		{0 << 8, 1, " 1 byte at a time"},
		{1 << 8, 2, " 2 bytes at a time"},
		{5 << 8, 64, " 64 bytes at a time"},
	} {
		f := fault{kind: ChaosSlow, f: chaos.Fault{Kind: chaos.SlowWrite, Param: tc.param}}
		if chunk, _ := f.f.SlowWrite(); chunk != tc.chunk {
			t.Fatalf("param %#x: a piece of %d bytes, want %d", tc.param, chunk, tc.chunk)
		}
		for _, paces := range []bool{false, true} {
			if got := f.detail(false, paces); !strings.Contains(got, tc.want) {
				t.Errorf("paces %v: detail %q, want it to say %q", paces, got, tc.want)
			}
		}
	}
}
