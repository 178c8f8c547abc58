package transport

import (
	"context"
	"testing"
	"time"
)

func TestPace(t *testing.T) {
	if _, _, ok := PaceOf(context.Background()); ok {
		t.Error("a pace in a plain ctx")
	}
	chunk, pause, ok := PaceOf(WithPace(context.Background(), 8, 5*time.Millisecond))
	if !ok || chunk != 8 || pause != 5*time.Millisecond {
		t.Errorf("PaceOf = %d, %v, %v; want 8, 5ms, true", chunk, pause, ok)
	}
	if chunk, _, _ := PaceOf(WithPace(context.Background(), 0, 0)); chunk != 1 {
		t.Errorf("chunk 0 read back as %d, want 1", chunk)
	}
}
