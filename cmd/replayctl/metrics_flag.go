package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/metrics"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/transport"
)

// metricsPath is where --metrics serves the metrics.
const metricsPath = "/metrics"

// metricsFlags are --metrics and --metrics-linger.
type metricsFlags struct {
	addr   string
	linger time.Duration
}

func addMetricsFlags(fl *pflag.FlagSet, f *metricsFlags) {
	fl.StringVar(&f.addr, "metrics", "", "serve the replay's metrics to Prometheus at http://ADDR/metrics while it runs, e.g. 127.0.0.1:9464 (port 0 picks a free one; the URL is printed on stderr)")
	fl.DurationVar(&f.linger, "metrics-linger", 0, "after the replay, keep --metrics up until it has been scraped once more (the final counts), at most this long (0: stop at once)")
}

// metricsServer is --metrics: the replay's metrics, served on their own
// listener while the replay runs.
type metricsServer struct {
	m       *metrics.Metrics
	cancel  context.CancelFunc // stops serving
	served  chan error         // ServeUntil's outcome
	linger  time.Duration
	final   chan struct{}    // closed once the counts are final
	scrapes chan finalScrape // the scrapes that began after final, for stop
	done    <-chan struct{}  // closed once serving stops
}

// finalScrape is a scrape that began after the counts were final: how
// long its answer took to write, how long its scraper said it would
// wait (X-Prometheus-Scrape-Timeout-Seconds; 0 when it did not say),
// and why the answer was not written in full, if it was not.
type finalScrape struct {
	took, timeout time.Duration
	err           error
}

// scrapeTimeoutHeader is where Prometheus says how long it waits for an
// answer before it drops it.
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// scrapeTimeout is the timeout a scraper says in h (scrapeTimeoutHeader),
// 0 when it says none or nothing that reads as a positive number of
// seconds.
func scrapeTimeout(h http.Header) time.Duration {
	secs, err := strconv.ParseFloat(h.Get(scrapeTimeoutHeader), 64)
	if err != nil || !(secs > 0) || secs > 1e9 {
		return 0
	}
	return time.Duration(secs * float64(time.Second))
}

// kept says whether the scraper has, in all likelihood, kept the answer:
// it was written in full, and, when the scraper said its timeout, in at
// most half of it (the other half is the scraper's own part of the
// exchange, which the server cannot see: sending the request, reading
// the answer). When not, why says so.
func (f finalScrape) kept() (ok bool, why string) {
	switch {
	case f.err != nil:
		return false, fmt.Sprintf("its answer was not written in full: %v", f.err)
	case f.timeout > 0 && f.took > f.timeout/2:
		return false, fmt.Sprintf("its answer took %s, more than half the %s the scraper waits (%s): it may have dropped it",
			f.took.Round(time.Microsecond), f.timeout, scrapeTimeoutHeader)
	}
	return true, ""
}

// startMetrics serves the metrics of a replay at f.addr, when given:
// the listener follows --listen's rules (listenTCP); a request whose
// Host or Origin is not this machine's (DNS rebinding) is refused, as
// serve refuses it. It returns the replay option that feeds the
// metrics, or nothing when --metrics was not given.
func (a *app) startMetrics(f metricsFlags, opts ...metrics.Option) (*metricsServer, []replay.Option, error) {
	if f.addr == "" {
		if f.linger != 0 {
			return nil, nil, usageError("--metrics-linger %s: it keeps --metrics up: give --metrics ADDR too", f.linger)
		}
		return nil, nil, nil
	}
	if f.linger < 0 {
		return nil, nil, usageError("--metrics-linger %s: want a duration of 0 or more, e.g. 30s (default 0: stop at once)", f.linger)
	}
	ln, err := listenTCP("--metrics", f.addr)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &metricsServer{m: metrics.New(opts...), cancel: cancel, served: make(chan error, 1), linger: f.linger,
		final: make(chan struct{}), scrapes: make(chan finalScrape), done: ctx.Done()}
	mux := http.NewServeMux()
	mux.Handle(metricsPath, s)
	go func() { s.served <- transport.ServeUntil(ctx, ln, guarded(mux)) }()
	fmt.Fprintf(a.errOut, "metrics on http://%s%s (Prometheus text format)\n", ln.Addr(), metricsPath)
	if !transport.IsLoopbackAddr(ln.Addr().String()) {
		fmt.Fprintf(a.errOut, "warning: --metrics listening on %s, beyond loopback: other machines can scrape it. "+
			"It answers only the Host names localhost, 127.0.0.1, [::1] and the address it is reached at; listen on 127.0.0.1 to keep it to this machine\n", ln.Addr())
	}
	return s, []replay.Option{replay.Events(s.m.Consumer())}, nil
}

// metrics is the instance --metrics counts into, nil when it is not given.
func (s *metricsServer) metrics() *metrics.Metrics {
	if s == nil {
		return nil
	}
	return s.m
}

// ServeHTTP serves the metrics. A scrape that began once the counts
// were final is handed to stop (finalScrape) when its answer has been
// written and flushed, or when serving stops.
func (s *metricsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.final:
	default:
		s.m.ServeHTTP(w, r)
		return
	}
	began := time.Now()
	s.m.ServeHTTP(w, r)
	f := finalScrape{timeout: scrapeTimeout(r.Header), err: http.NewResponseController(w).Flush()}
	f.took = time.Since(began)
	if f.err == nil && r.Context().Err() != nil {
		f.err = errors.New("the scraper closed the connection")
	}
	select {
	case s.scrapes <- f:
	case <-s.done:
	}
}

// guarded refuses, with 403, a request whose Host or Origin is not this
// machine's or the address it reached (transport.Guard), as serve does,
// with no names allowed beyond those.
func guarded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local := ""
		if addr, ok := r.Context().Value(http.LocalAddrContextKey).(interface{ String() string }); ok {
			local = addr.String()
		}
		var refused *transport.ForbiddenError
		if err := (transport.Guard{}).Admit(local, r.Host, r.Header.Get("Origin")); errors.As(err, &refused) {
			http.Error(w, fmt.Sprintf("Forbidden: %s %q may not reach --metrics (DNS rebinding protection): it answers the Host names localhost, 127.0.0.1, [::1] and the address it was reached at, and pages from those only",
				refused.Header, refused.Value), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// stop ends --metrics once the replay has ended: when it ran, it
// waits (at most --metrics-linger, or until ctx is done) for one more
// scrape that the scraper kept (finalScrape.kept), so that Prometheus
// has the final counts, then closes the listener. A scrape not counted
// is noted on errOut. stop on a nil server does nothing.
func (s *metricsServer) stop(ctx context.Context, errOut io.Writer) error {
	if s == nil {
		return nil
	}
	if s.m.Ended() && s.linger > 0 {
		close(s.final)
		fmt.Fprintf(errOut, "metrics: waiting for a last scrape of the final counts (at most %s; Ctrl-C ends it)\n", s.linger)
		t := time.NewTimer(s.linger)
	wait:
		for {
			select {
			case f := <-s.scrapes:
				ok, why := f.kept()
				if ok {
					break wait
				}
				fmt.Fprintf(errOut, "metrics: a scrape of the final counts not counted (%s): waiting for another\n", why)
			case <-t.C:
				fmt.Fprintf(errOut, "metrics: no scrape of the final counts kept within --metrics-linger %s: stopping\n", s.linger)
				break wait
			case <-ctx.Done():
				break wait
			}
		}
		t.Stop()
	}
	s.cancel()
	if err := <-s.served; err != nil {
		return fmt.Errorf("--metrics: %w", err)
	}
	return nil
}

// metricsInfo are the options of a replay's metrics: run info labels
// (the command, the tape, replayctl's version) and the methods labelled
// apart (--method-limit).
func metricsInfo(command, tape string, methodLimit int) []metrics.Option {
	return []metrics.Option{metrics.Info("command", command), metrics.Info("tape", tape),
		metrics.Info("version", readVersion().Version), metrics.MethodLimit(methodLimit)}
}

// stopMetrics stops --metrics (metricsServer.stop), saying on stderr
// why it failed, if it did: the replay's outcome stands.
func (a *app) stopMetrics(ctx context.Context, s *metricsServer) {
	if err := s.stop(ctx, a.errOut); err != nil {
		fmt.Fprintf(a.errOut, "replayctl: %v\n", err)
	}
}
