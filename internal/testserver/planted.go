package testserver

import (
	"sync"
	"testing"
)

// planted is the test server with a planted bug (./planted).
var planted struct {
	once sync.Once
	path string
	err  error
}

// Planted returns the argv of a tiny stdio MCP server (./planted) that
// answers every request and exits where its flags plant a bug: tools a,
// b, then c with a given argument (-abc), one time in three (-flaky), or
// a tool call whose id repeats (-dup).
// Append the flags to the argv.
func Planted(t testing.TB) []string {
	t.Helper()
	planted.once.Do(func() {
		planted.path, planted.err = build(Root(t), "github.com/replayctl/replayctl/internal/testserver/planted", "planted")
	})
	if planted.err != nil {
		t.Fatalf("testserver: %v", planted.err)
	}
	return []string{planted.path}
}
