package record

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Transport names an HTTP proxy writes in its tape's header.
const (
	TransportStreamableHTTP = "streamable-http"
	TransportLegacySSE      = "http+sse" // 2024-11-05 HTTP+SSE
)

// OpenTape creates the tape an HTTP proxy writes, given the header the
// proxy made: transport, upstream URL, the protocol version it learned.
// tape.Create with a path is one.
type OpenTape func(h tape.Header) (*tape.Writer, error)

// HTTP is a recording reverse proxy for MCP over HTTP (Streamable HTTP of
// every revision, and the legacy 2024-11-05 HTTP+SSE): an http.Handler
// that relays every request for the MCP endpoint that its guard admits
// (see ServeHTTP) to the upstream server, byte for byte, on
// net/http/httputil.ReverseProxy, and writes every JSON-RPC message that
// passes to a tape through one Tap, as it passes. SSE answers are parsed
// as they stream (FlushInterval -1: each event reaches the client at
// once); no body is held whole beyond the message limit.
//
// Paths are kept: a client talks to the proxy at the upstream's path
// (upstream http://h:9/mcp, proxy listening on 127.0.0.1:8000: the client
// uses http://127.0.0.1:8000/mcp). What goes on the tape, and how
// sessions are named, is said in the package documentation.
//
// ServeHTTP is safe for concurrent use by any number of clients. Shutdown
// order: Stop (ends every stream in flight), then the http.Server's
// Shutdown, then Close (writes the end line).
type HTTP struct {
	upstream *url.URL
	rp       *httputil.ReverseProxy
	log      zerolog.Logger
	limit    int
	open     OpenTape
	tapOpts  []TapOption
	admit    transport.Guard // who may reach the proxy (DNS rebinding protection)

	guard       *transport.BodyGuard // in front of serve
	bodyTimeout time.Duration
	bodyBudget  int64

	stop     context.Context // done when Stop is called: streams end
	stopFunc context.CancelFunc
	dropped  atomic.Int64 // messages relayed but not recorded

	mu       sync.Mutex // guards what follows
	tap      *Tap       // lazy: see ensureTap
	first    time.Time  // when the first message to record was seen
	legacy   bool       // a legacy HTTP+SSE stream was seen
	names    int        // tape session names handed out: s1…sN
	bySessID map[string]string
	lanes    lanes             // clients without a session id
	seq      int               // messages given to lanes
	byPath   map[string]string // legacy: announced endpoint → session
}

// HTTPOption configures an HTTP proxy.
type HTTPOption func(*HTTP)

// WithLogger logs through log (default: nothing).
func WithLogger(log zerolog.Logger) HTTPOption {
	return func(p *HTTP) { p.log = log.With().Str("stage", "record-http").Logger() }
}

// WithMaxMessage bounds what one recorded message may be, in bytes (0 or
// less: transport.DefaultMaxMessage). A longer message still reaches its
// peer whole; it is not recorded, and is counted in Dropped and logged.
func WithMaxMessage(n int) HTTPOption { return func(p *HTTP) { p.limit = n } }

// WithBodyReadTimeout sets how long a client has to send a request's
// whole body (0 or less: transport.DefaultBodyTimeout); a body still
// arriving then is answered 408. See transport.BodyGuard.
func WithBodyReadTimeout(d time.Duration) HTTPOption { return func(p *HTTP) { p.bodyTimeout = d } }

// WithBodyBudget sets how many bytes of request bodies the proxy holds at
// once over all its clients (0 or less: transport.DefaultBodyBudget); a
// body that would take more is answered 503 with Retry-After. See
// transport.BodyGuard.
func WithBodyBudget(n int64) HTTPOption { return func(p *HTTP) { p.bodyBudget = n } }

// WithTapOptions passes opts to the Tap the proxy makes (a Redactor).
func WithTapOptions(opts ...TapOption) HTTPOption {
	return func(p *HTTP) { p.tapOpts = append(p.tapOpts, opts...) }
}

// WithAllowHosts lets requests naming these hosts in their Host header
// reach the proxy, besides localhost, the loopback addresses and the
// address a request reached ("*": any): see transport.Guard. Others are
// answered 403 and not relayed.
func WithAllowHosts(hosts ...string) HTTPOption {
	return func(p *HTTP) { p.admit.Hosts = append(p.admit.Hosts, hosts...) }
}

// WithAllowOrigins lets browser pages from these origins reach the proxy,
// besides those transport.Guard allows itself ("*": any). Others are
// answered 403 and not relayed.
func WithAllowOrigins(origins ...string) HTTPOption {
	return func(p *HTTP) { p.admit.Origins = append(p.admit.Origins, origins...) }
}

// WithRoundTripper sends upstream requests through rt instead of the
// proxy's own http.Transport. A request sent again (see retryReused) first
// closes rt's idle connections when rt has CloseIdleConnections, to every
// host: give the proxy an rt of its own, not a shared one such as
// http.DefaultTransport.
func WithRoundTripper(rt http.RoundTripper) HTTPOption {
	return func(p *HTTP) { p.rp.Transport = rt }
}

// NewHTTP returns a proxy to the MCP server at upstream (an http or https
// URL) that records into the tape open creates. The tape is created when
// the first message is recorded, so that its header can say the protocol
// version (or by Close, if none was); its time counts from that first
// message.
func NewHTTP(upstream string, open OpenTape, opts ...HTTPOption) (*HTTP, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("record: upstream %q is not an http:// or https:// URL", upstream)
	}
	p := &HTTP{
		upstream: u, open: open, log: zerolog.Nop(),
		bySessID: map[string]string{}, byPath: map[string]string{},
	}
	p.stop, p.stopFunc = context.WithCancel(context.Background())
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		FlushInterval:  -1,
		Transport:      defaultTransport(),
	}
	for _, opt := range opts {
		opt(p)
	}
	p.rp.Transport = retryReused{p.rp.Transport}
	p.limit = transportLimit(p.limit)
	p.guard = transport.NewBodyGuard(http.HandlerFunc(p.serve), p.limit, p.bodyTimeout, p.bodyBudget)
	// ReverseProxy's own complaints (a stream cut by Stop or by the
	// upstream) go to the logger at debug level, not to the process's
	// standard logger.
	p.rp.ErrorLog = log.New(debugWriter{&p.log}, "", 0)
	return p, nil
}

// debugWriter writes each line it is given as a debug log event.
type debugWriter struct{ log *zerolog.Logger }

func (w debugWriter) Write(b []byte) (int, error) {
	w.log.Debug().Msg(strings.TrimSpace(string(b)))
	return len(b), nil
}

func transportLimit(n int) int {
	if n <= 0 {
		return transport.DefaultMaxMessage
	}
	return n
}

// defaultTransport is http.DefaultTransport's settings with room for many
// clients' connections, and no compression of its own (a client's
// Accept-Encoding goes through as it is).
func defaultTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil, // loopback and explicit upstreams: no environment proxy
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
		DisableCompression:    true,
	}
}

// Upstream is the URL the proxy relays to.
func (p *HTTP) Upstream() *url.URL { return p.upstream }

// Dropped is how many messages were relayed but not recorded: over the
// message limit, not JSON-RPC, or in an encoding the proxy cannot read.
func (p *HTTP) Dropped() int64 { return p.dropped.Load() }

// Messages is how many messages are on the tape so far.
func (p *HTTP) Messages() int64 {
	p.mu.Lock()
	tap := p.tap
	p.mu.Unlock()
	if tap == nil {
		return 0
	}
	return tap.Messages()
}

// ServeHTTP relays r to the upstream and records what passes. A POST's
// body (one message or a batch) is read first, up to the message limit,
// within the body read timeout and budget (transport.BodyGuard), so that
// it is recorded before its answer; the rest of a longer one is relayed
// as it comes. It returns when the answer (a whole SSE stream included)
// has been relayed, the client has gone, or Stop was called.
//
// Before anything is read or relayed, the request must pass the proxy's
// transport.Guard (its Host one of the proxy's names, its Origin, if any,
// allowed: else 403), and must be for the MCP endpoint: the upstream URL's
// path, or a legacy HTTP+SSE message endpoint a relayed stream announced
// (else 404). Neither refusal reaches the upstream or the tape.
func (p *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.admit.Refuse(w, r) {
		return
	}
	if !p.endpoint(r) {
		http.Error(w, "replayctl record: Not Found: this proxy relays the MCP endpoint "+p.upstream.EscapedPath()+" only", http.StatusNotFound)
		return
	}
	p.guard.ServeHTTP(w, r)
}

// BodiesHeld is how many bytes of request bodies the proxy holds now, and
// the most it ever held at once.
func (p *HTTP) BodiesHeld() (now, peak int64) { return p.guard.Held(), p.guard.Peak() }

// serve relays r (admitted, for the MCP endpoint, its body guarded).
func (p *HTTP) serve(w http.ResponseWriter, r *http.Request) {
	ex := &exchange{p: p, seen: time.Now(), req: r}
	if r.Method == http.MethodPost && r.Body != nil {
		if err := ex.readBody(); err != nil {
			p.log.Debug().Err(err).Msg("read a client's POST body")
			http.Error(w, "replayctl record: could not read the request body", http.StatusBadRequest)
			return
		}
	} else if s, ok, _ := p.requestSession(r); ok {
		ex.session = s // a GET stream or a DELETE of a known session
	}
	defer ex.flushClient() // a request that ended without an answer or a failure
	ctx, cancel := context.WithCancel(context.WithValue(r.Context(), exchangeKey{}, ex))
	defer cancel()
	defer context.AfterFunc(p.stop, cancel)()
	if p.stop.Err() != nil {
		// Stopped already: cancelled now, not by AfterFunc's goroutine,
		// which the relay could outrun (the upstream's answer then cut
		// half way, the client's connection aborted): the relay fails at
		// once and errorHandler answers 503.
		cancel()
	}
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

// endpoint says whether r is for an MCP endpoint of the upstream: the
// upstream URL's path (any query), or a legacy message endpoint (path and
// query) a relayed stream announced.
func (p *HTTP) endpoint(r *http.Request) bool {
	if r.URL.EscapedPath() == upstreamPath(p.upstream) {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.byPath[r.URL.RequestURI()]
	return ok
}

// upstreamPath is the escaped path of the upstream URL, "/" for none.
func upstreamPath(u *url.URL) string {
	if path := u.EscapedPath(); path != "" {
		return path
	}
	return "/"
}

type exchangeKey struct{}

func exchangeOf(r *http.Request) *exchange {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return ex
}

// rewrite points the request at the upstream, keeping its path and query.
//
// Host is the upstream's: the proxy is the server its clients name, so it
// judged their Host itself (ServeHTTP's guard, by the rule the go-sdk and
// TypeScript servers apply: a loopback name, or an allowed one), and it is
// a client of the upstream, so it names the upstream as any client of it
// does — a Host the upstream accepts, as it would have accepted the
// client's. A Host it would refuse never reaches it. Origin passes as the
// client sent it, for the upstream to judge, except a page of the proxy's
// own origin: it is the upstream's own origin there, as it would be for
// the same page served next to the upstream.
func (p *HTTP) rewrite(pr *httputil.ProxyRequest) {
	pr.Out.URL.Scheme = p.upstream.Scheme
	pr.Out.URL.Host = p.upstream.Host
	pr.Out.Host = p.upstream.Host
	if ex := exchangeOf(pr.In); ex != nil && ex.body != nil && !ex.over {
		pr.Out.GetBody = bodyAgain(ex.body) // sent again: retryReused
	}
	if origin := pr.In.Header.Get("Origin"); origin != "" && strings.EqualFold(origin, ownOrigin(pr.In)) {
		pr.Out.Header.Set("Origin", p.upstream.Scheme+"://"+p.upstream.Host)
	}
}

// ownOrigin is the origin of the proxy as r's client named it.
func ownOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// modifyResponse taps the answer: it decides the tape session, records
// the client's message and wraps the body so that what it carries is
// recorded as it passes.
func (p *HTTP) modifyResponse(resp *http.Response) error {
	ex := exchangeOf(resp.Request)
	if ex == nil {
		return nil
	}
	ex.answered(resp)
	return nil
}

// errorHandler answers a client whose request could not be relayed: 502
// with a JSON-RPC error naming the upstream, or 503 when the proxy is
// stopping. The client's message is on the tape already; the proxy's own
// answer is not (the server did not say it).
func (p *HTTP) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeOf(r)
	var id []byte
	if ex != nil {
		id = ex.unreachable()
	}
	switch {
	case p.stop.Err() != nil:
		http.Error(w, "replayctl record is stopping", http.StatusServiceUnavailable)
		return
	case r.Context().Err() != nil:
		return // the client went away: nobody to tell
	}
	p.log.Warn().Err(err).Str("upstream", p.upstream.String()).Msg("upstream request failed")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write(upstreamError(id, p.upstream.String(), err))
}

// Stop ends every exchange in flight (open SSE streams among them): their
// upstream requests are cancelled and their clients' responses end. It
// is idempotent; requests that come after it are answered 503 at once.
func (p *HTTP) Stop() { p.stopFunc() }

// Close stops the proxy (Stop) and closes the tape: its end line is
// written. A proxy that recorded nothing creates its tape now, so that a
// run always leaves one. Close is idempotent; call it after the
// http.Server has shut down (a message of a handler still running then
// is not recorded, and is logged).
func (p *HTTP) Close() error {
	p.Stop()
	return p.ensureTap(time.Now()).Close()
}

// ensureTap returns the Tap, making it on first use. It is lazy
// (NewLazyTap): the tape file is created once the protocol version is
// known (the first exchange the server accepted that tells it), with a
// header that says what is known by then.
func (p *HTTP) ensureTap(seen time.Time) *Tap {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tap != nil {
		return p.tap
	}
	if p.first.IsZero() || seen.Before(p.first) {
		p.first = seen
	}
	p.tap = NewLazyTap(p.openTape, append([]TapOption{WithStart(p.first)}, p.tapOpts...)...)
	return p.tap
}

// openTape creates the tape, for the Tap, once it knows the protocol
// version (or gave up learning it).
func (p *HTTP) openTape(version string) (*tape.Writer, error) {
	p.mu.Lock()
	h := tape.Header{
		CreatedAt:       p.first.UTC().Format(time.RFC3339Nano),
		ProtocolVersion: version,
		Transport:       TransportStreamableHTTP,
		Server:          &tape.Server{URL: p.upstream.String()},
	}
	if p.legacy {
		h.Transport = TransportLegacySSE
	}
	p.mu.Unlock()
	return p.open(h)
}

// record writes m, seen at at, to the tape. A failure is logged once per
// message; the client's traffic goes on regardless.
func (p *HTTP) record(at time.Time, m tape.Message) {
	if err := p.ensureTap(at).RecordMessage(at, m); err != nil {
		p.log.Error().Err(err).Str("session", m.Session).Msg("message not recorded")
	}
}

// drop notes a message relayed but not recorded.
func (p *HTTP) drop(session, why string) {
	p.dropped.Add(1)
	p.log.Warn().Str("session", session).Msg("message relayed but not recorded: " + why)
}

// Sessions is how many tape sessions the proxy has named so far.
func (p *HTTP) Sessions() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.names
}
