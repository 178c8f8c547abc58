package ui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
)

// Defaults of the options.
const (
	DefaultFrame   = 100 * time.Millisecond
	DefaultJournal = 1_000_000 // events
	DefaultBodies  = 64 << 20  // bytes of messages kept for the detail view
	// DefaultBuffer is the server's buffer in the event stream, in
	// events: a live consumer's, larger than the stream's default so that
	// a burst between two of its batches is not dropped.
	DefaultBuffer = 1 << 16
)

// writeTimeout bounds each write to a viewer: one that does not read is
// dropped, never waited for.
const writeTimeout = 10 * time.Second

// Option sets up a Server.
type Option func(*Server)

// WithToken sets the token every request must carry (default: 32 random
// hex digits).
func WithToken(t string) Option { return func(s *Server) { s.token = t } }

// WithFrame sets how often the pending events are sent to the viewers as
// one frame (default DefaultFrame).
func WithFrame(d time.Duration) Option { return func(s *Server) { s.frame = d } }

// WithJournal bounds the journal to n events (default DefaultJournal);
// past it the oldest frames are dropped (see the package doc).
func WithJournal(n int) Option { return func(s *Server) { s.j.max = n } }

// WithBodies bounds the bytes of messages kept for the detail view
// (default DefaultBodies); see bodies.go.
func WithBodies(n int64) Option { return func(s *Server) { s.bodies.max = n } }

// WithController lets the page drive the replay through c and follow its
// status (debug).
func WithController(c *controller.Controller) Option { return func(s *Server) { s.ctl = c } }

// WithLogger sets the logger (default: none).
func WithLogger(l zerolog.Logger) Option {
	return func(s *Server) { s.log = l.With().Str("stage", "ui").Logger() }
}

// WithGuard sets the Host names and Origins allowed besides the server's
// own (transport.Guard).
func WithGuard(g transport.Guard) Option { return func(s *Server) { s.guard = g } }

// WithTitle names the run on the page (the tape's name).
func WithTitle(t string) Option { return func(s *Server) { s.title = t } }

// WithThresholds lists the run's thresholds on the page before their
// results are known (Finish gives those).
func WithThresholds(exprs ...string) Option { return func(s *Server) { s.thresholds = exprs } }

// Server is the browser view. Its methods are safe for concurrent use.
type Server struct {
	token      string
	frame      time.Duration
	ctl        *controller.Controller
	log        zerolog.Logger
	guard      transport.Guard
	title      string
	thresholds []string
	page       []byte // the page, assembled once

	mux    *http.ServeMux
	j      *journal
	bodies *bodies
	groups *grouper
	rec    *recordFeed

	mu     sync.Mutex // guards what follows
	served bool       // Serve was called: Handle is too late
	state  []byte     // the last controller status, JSON; nil: none
	result []byte     // the run's verdict (Finish), JSON; nil: running
	change chan struct{}

	serveStart time.Time // ServeOptions' start: the serve's times count from it

	refresh chan struct{} // a command of the page was run: follow reads the state afresh
}

// New makes a server; Serve serves it.
func New(opts ...Option) *Server {
	s := &Server{frame: DefaultFrame, log: zerolog.Nop(), mux: http.NewServeMux(),
		j: newJournal(DefaultJournal), bodies: newBodies(DefaultBodies), groups: newGrouper(), rec: &recordFeed{pending: map[string]recordedRequest{}}, change: make(chan struct{}),
		refresh: make(chan struct{}, 1)}
	for _, o := range opts {
		o(s)
	}
	if s.token == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b) // never fails (crypto/rand)
		s.token = hex.EncodeToString(b)
	}
	if s.frame <= 0 {
		s.frame = DefaultFrame
	}
	s.page = assemble()
	s.mux.HandleFunc("GET /{$}", s.servePage)
	s.mux.HandleFunc("GET /events", s.serveEvents)
	s.mux.HandleFunc("GET /api/message", s.serveMessage)
	s.mux.HandleFunc("POST /api/control", s.serveControl)
	return s
}

// Handle serves h at path (e.g. "/metrics") behind the same token and
// Host/Origin checks as the page. It must be called before Serve.
func (s *Server) Handle(path string, h http.Handler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.served {
		return errors.New("ui: Handle after Serve")
	}
	s.mux.Handle(path, h)
	return nil
}

// Control lets the page drive the replay through c, as WithController
// does, for a controller made after the server (its replay takes the
// server's Options). It must be called before Serve.
func (s *Server) Control(c *controller.Controller) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.served {
		return errors.New("ui: Control after Serve")
	}
	s.ctl = c
	return nil
}

// Token is the token every request must carry.
func (s *Server) Token() string { return s.token }

// URL is the page's address on ln, token included.
func (s *Server) URL(ln net.Listener) string {
	host := ln.Addr().String()
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", fmt.Sprint(a.Port))
	}
	return "http://" + host + "/?token=" + s.token
}

// Consumer is the server's reader of the replay's event stream: live
// (it drops the oldest events when behind, and never slows the replay).
func (s *Server) Consumer() event.Consumer {
	return event.Consumer{Name: "the browser view (--ui)", Live: true, Buffer: DefaultBuffer, Types: feedTypes,
		Handle: func(batch []event.Event) error {
			s.j.add(batch)
			return nil
		}}
}

// OnResult keeps the bytes of r for the detail view, within the bound
// (WithBodies), and tells the page the MRTR chain or the task r belongs
// to. It does not block; it is the replay's result hook.
func (s *Server) OnResult(r report.Result) {
	s.bodies.add(r)
	s.grouped(r)
}

// grouped tells the page the group of r (an MRTR chain, a task: see
// grouper), if it belongs to one.
func (s *Server) grouped(r report.Result) {
	if r.Dir != "c2s" || r.Kind != "request" || !mayGroup(r.Out, r.Answer) {
		return
	}
	if id, kind := s.groups.group(r.Session, r.Method, r.Name, r.Out, r.Answer); id != 0 {
		s.j.addGroup(r.Session, r.Seq, id, kind)
	}
}

// Options are the replay options that feed the server: its event
// consumer and its result hook.
func (s *Server) Options() []replay.Option {
	return []replay.Option{replay.Events(s.Consumer()), replay.OnResult(s.OnResult)}
}

// Finish tells the page the run's verdict and its thresholds' results,
// after the run's last events: it seals them before it sets the verdict,
// which a viewer reads before the frames (snap).
func (s *Server) Finish(rep *report.Report) {
	b := finishJSON(rep)
	s.j.seal()
	s.mu.Lock()
	s.result = b
	s.mu.Unlock()
	s.changed()
}

// changed wakes every viewer.
func (s *Server) changed() {
	s.mu.Lock()
	close(s.change)
	s.change = make(chan struct{})
	s.mu.Unlock()
}

// Serve serves the page on ln until ctx is done, then closes ln and
// returns once every handler has (viewers' streams are ended). The
// journal's frames are sealed every WithFrame meanwhile.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	s.served = true
	s.mu.Unlock()
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("ui: serve %s: %w", ln.Addr(), err)
		}
		return nil
	})
	g.Go(func() error {
		t := time.NewTicker(s.frame)
		defer t.Stop()
		for {
			select {
			case <-gctx.Done():
				return nil
			case <-t.C:
				if s.j.seal() {
					s.changed()
				}
			}
		}
	})
	if s.ctl != nil {
		g.Go(func() error { s.follow(gctx); return nil })
	}
	g.Go(func() error {
		<-gctx.Done()
		cancel() // the viewers' streams end
		sctx, stop := context.WithTimeout(context.Background(), writeTimeout)
		defer stop()
		return hs.Shutdown(sctx)
	})
	err := g.Wait()
	if ctx.Err() != nil && err == nil {
		return nil
	}
	return err
}

// ServeHTTP checks the request (Host, Origin, token) and serves it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	local := ""
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
		local = a.String()
	}
	if err := s.guard.Admit(local, r.Host, r.Header.Get("Origin")); err != nil {
		var fe *transport.ForbiddenError
		msg := err.Error()
		if errors.As(err, &fe) {
			msg = fmt.Sprintf("Forbidden: %s %q may not reach this replay's view (DNS rebinding and cross-site protection): open it at the address printed on start", fe.Header, fe.Value)
		}
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="replayctl"`)
		http.Error(w, "Unauthorized: this replay's view needs its token: open the address printed on start (…/?token=…), or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries the token, in the query or as a
// bearer token.
func (s *Server) authorized(r *http.Request) bool {
	got := r.URL.Query().Get("token")
	if h := r.Header.Get("Authorization"); got == "" && h != "" {
		if t, ok := strings.CutPrefix(h, "Bearer "); ok {
			got = strings.TrimSpace(t)
		}
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

func (s *Server) servePage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'")
	_, _ = w.Write(s.page)
}
