package testbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites: writes from several goroutines at once (run
// with -race) all land, each whole.
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				fmt.Fprintf(&b, "g%d-%d\n", g, i)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines, want 400", len(lines))
	}
	for g := range 4 {
		if n := strings.Count(b.String(), fmt.Sprintf("g%d-", g)); n != 100 {
			t.Errorf("goroutine %d: %d lines, want 100", g, n)
		}
	}
}

// TestWrote: a write before Wrote is first called leaves a value; a
// value stands for any number of writes; none is left once taken.
func TestWrote(t *testing.T) {
	var b Buffer
	select {
	case <-b.Wrote():
		t.Fatal("a value before any write")
	default:
	}
	var c Buffer
	c.Write([]byte("a"))
	c.Write([]byte("b"))
	select {
	case <-c.Wrote():
	default:
		t.Fatal("no value after two writes made before Wrote was called")
	}
	select {
	case <-c.Wrote():
		t.Fatal("a second value for the same writes")
	default:
	}
	c.Write([]byte("c"))
	select {
	case <-c.Wrote():
	default:
		t.Fatal("no value after a write once the last was taken")
	}
	if got := c.String(); got != "abc" {
		t.Errorf("String() = %q, want %q", got, "abc")
	}
}
