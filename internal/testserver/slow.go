package testserver

import (
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
)

// slow is the timing, load and hang test server (./slow).
var slow struct {
	once sync.Once
	path string
	err  error
}

// Slow returns the argv of the slow test server (./slow) over stdio, with
// args appended. Its flags:
//
//	-delay D       answer every tools/call after D, each request on its own
//	-init-delay D  answer initialize after D
//	-cancel        honour notifications/cancelled: a delayed answer whose request is cancelled is never written (stdio)
//	-ask M:D       send a request of method M (ids "ask-1"…) D after each notifications/initialized (stdio)
//	-start D       sleep D before reading stdin (a server slow to start)
//	-arrivals FILE append "<unix ns> <method|response|invalid> <id|->" per message received, before any delay
//	-gate N        hold every tools/call until the -arrivals FILE holds N tools/call lines (servers sharing it count together)
//	-hang noread   after answering initialize, write 2,000 ~1 KB
//	               sampling/createMessage requests (ids "srv-1"…) and never read stdin again
//	-hang endless  answer tools/call with a line that never ends (4 GiB of text, no newline)
//	-hang silent   never answer tools/call (every other request is answered)
//	-size N        answer every tools/call with a text of N bytes
//
// It exits 0 when stdin ends, once the delayed answers are written.
func Slow(t testing.TB, args ...string) []string {
	t.Helper()
	slow.once.Do(func() {
		slow.path, slow.err = build(Root(t), "github.com/replayctl/replayctl/internal/testserver/slow", "slow")
	})
	if slow.err != nil {
		t.Fatalf("testserver: %v", slow.err)
	}
	return append([]string{slow.path}, args...)
}

// SlowHTTP starts the slow test server over stateless Streamable HTTP on
// a free loopback port, with args (see Slow; -start delays listening)
// and returns its endpoint, http://127.0.0.1:N/mcp. HTTP-only hang modes:
//
//	-hang headers      never write response headers for tools/call; block until the client goes away
//	-hang 429          answer tools/call with status 429 and Retry-After: 100000
//	-hang endless      answer tools/call with a JSON body that never ends
//	-hang gzip-bomb    answer tools/call with 1 MiB of gzip that unpacks to 1 GiB
//	-hang sse-endless  answer tools/call with an event stream whose data line never ends
//
// The server is stopped when the test ends.
func SlowHTTP(t testing.TB, args ...string) string {
	t.Helper()
	argv := Slow(t, args...)
	addr := start(t, func(port int) *exec.Cmd {
		return exec.Command(argv[0], append([]string{"-http", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, argv[1:]...)...)
	})
	return "http://" + addr + "/mcp"
}

// SlowHandler is the slow server's HTTP endpoint in process, as SlowHTTP
// serves it with -delay delay and no hang, for httptest.NewServer. It
// answers at every path.
func SlowHandler(delay time.Duration) http.Handler {
	return slowmcp.Handler(slowmcp.WithDelay(delay))
}
