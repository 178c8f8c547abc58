package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"
)

// ShutdownTimeout bounds how long ServeUntil waits, once told to stop,
// for the HTTP requests in progress to end; past it their connections
// are closed.
const ShutdownTimeout = 5 * time.Second

// DefaultReadHeaderTimeout bounds how long ServeUntil waits for a
// request's headers unless ReadHeaderTimeout says otherwise.
const DefaultReadHeaderTimeout = 10 * time.Second

// ListenOption configures ServeUntil.
type ListenOption func(*listenConfig)

type listenConfig struct {
	limit             bool
	maxConns          int
	log               zerolog.Logger
	readHeaderTimeout time.Duration
	onServing         []func(net.Addr)
	beforeShutdown    []func()
}

// LimitConns caps the connections held at once at MaxConns(n) (n, or
// DefaultMaxConns when 0 or less, lowered to what the file descriptor
// limit leaves room for), closing connections as ConnLimiter does and
// logging it to log. Without it the connections are not capped.
func LimitConns(n int, log zerolog.Logger) ListenOption {
	return func(c *listenConfig) { c.limit, c.maxConns, c.log = true, n, log }
}

// ReadHeaderTimeout bounds how long a request's headers may take to come
// (DefaultReadHeaderTimeout by default).
func ReadHeaderTimeout(d time.Duration) ListenOption {
	return func(c *listenConfig) { c.readHeaderTimeout = d }
}

// OnServing adds a hook called once the server serves, with its address.
func OnServing(f func(addr net.Addr)) ListenOption {
	return func(c *listenConfig) { c.onServing = append(c.onServing, f) }
}

// BeforeShutdown adds a hook called once the server is told to stop,
// before the shutdown waits for the requests in progress: the place to
// end what would hold them open (event streams).
func BeforeShutdown(f func()) ListenOption {
	return func(c *listenConfig) { c.beforeShutdown = append(c.beforeShutdown, f) }
}

// ServeUntil serves h over HTTP on ln until ctx is done or serving fails,
// then stops: the BeforeShutdown hooks, then a shutdown that waits at
// most ShutdownTimeout for the requests in progress before it closes
// their connections. It returns once the server is closed and its serving
// goroutine has ended (ln is closed): nil when ctx ended it, else the
// error serving failed with.
func ServeUntil(ctx context.Context, ln net.Listener, h http.Handler, opts ...ListenOption) error {
	c := listenConfig{readHeaderTimeout: DefaultReadHeaderTimeout}
	for _, o := range opts {
		o(&c)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: c.readHeaderTimeout}
	if c.limit {
		ln = NewConnLimiter(MaxConns(c.maxConns), c.log).Listen(srv, ln)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	for _, f := range c.onServing {
		f(ln.Addr())
	}

	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	for _, f := range c.beforeShutdown {
		f()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		_ = srv.Close()
	}
	if err == nil { // stopped by ctx: Serve returns now that it is shut down
		<-served
		return nil
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
