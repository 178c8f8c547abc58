package transport

import (
	"context"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestAutoDetectsEachTransport dials both transports of the real
// server-everything through Auto and runs a short session on each.
func TestAutoDetectsEachTransport(t *testing.T) {
	for _, tc := range []struct {
		name   string
		url    func(testing.TB) string
		legacy bool
	}{
		{"streamable", testserver.EverythingHTTP, false},
		{"legacy-sse", testserver.EverythingSSE, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Auto{URL: tc.url(t)}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := a.Dial(ctx, "s1")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			if a.Legacy() != tc.legacy {
				t.Fatalf("Legacy() = %v, want %v", a.Legacy(), tc.legacy)
			}
			mcpSession(t, c, "echo", `{"message":"auto"}`, "Echo: auto")
		})
	}
}
