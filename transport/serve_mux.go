package transport

import (
	"errors"
	"net/http"
)

// Mux is every HTTP listener of one Sessions behind one handler: the
// legacy HTTP+SSE transport (2024-11-05) at /sse (its GET opens the
// stream, its POSTs go to /sse?sessionId=…), Streamable HTTP (both eras)
// at every other path, /mcp by convention. It is what replayctl serve
// --listen and replaytest.Server serve.
//
// Every request's body goes through a BodyGuard first (BodyReadTimeout,
// BodyBudget, ServerMaxMessage); a batch over MaxBatch gets one error.
type Mux struct {
	streamable *StreamableHandler
	legacy     *LegacyHandler
	mux        *http.ServeMux
	guard      *BodyGuard
}

// NewMux returns a Mux serving clients through sessions; opts apply to
// both listeners. Close it before shutting its http.Server down, so that
// open GET streams end.
func NewMux(sessions Sessions, opts ...ServerOption) *Mux {
	m := &Mux{
		streamable: NewStreamableHandler(sessions, opts...),
		legacy:     NewLegacyHandler(sessions, opts...),
		mux:        http.NewServeMux(),
	}
	m.mux.Handle("/sse", m.legacy)
	m.mux.Handle("/", m.streamable)
	cfg := m.streamable.cfg
	m.guard = NewBodyGuard(m.mux, cfg.maxMessage, cfg.bodyTimeout, cfg.bodyBudget)
	return m
}

// ServeHTTP implements http.Handler.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.guard.ServeHTTP(w, r) }

// BodiesHeld is how many bytes of request bodies the Mux holds now, and
// the most it ever held at once (see BodyGuard).
func (m *Mux) BodiesHeld() (now, peak int64) { return m.guard.Held(), m.guard.Peak() }

// Close closes both listeners' sessions (see StreamableHandler.Close and
// LegacyHandler.Close).
func (m *Mux) Close() error {
	return errors.Join(m.streamable.Close(), m.legacy.Close())
}
