package slowmcp

import (
	"bytes"
	"context"
	"os"
	"sync/atomic"
	"time"
)

// GatePoll is how often a held tools/call re-reads the gate's file.
const GatePoll = 10 * time.Millisecond

// gate holds tools/call answers until a shared arrivals file counts n
// calls (see WithGate).
type gate struct {
	path string
	n    int
	open atomic.Bool
}

// wait returns true once the gate is open, or false as soon as ctx is
// done. A nil *gate is open.
func (g *gate) wait(ctx context.Context) bool {
	if g == nil {
		return true
	}
	for !g.open.Load() {
		if b, err := os.ReadFile(g.path); err == nil && countCalls(b) >= g.n {
			g.open.Store(true)
			break
		}
		if !sleep(ctx, GatePoll) {
			return false
		}
	}
	return true
}

// countCalls counts the tools/call lines of an arrivals log.
func countCalls(log []byte) int {
	n := 0
	for line := range bytes.Lines(log) {
		if f := bytes.Fields(line); len(f) >= 3 && string(f[1]) == "tools/call" {
			n++
		}
	}
	return n
}
