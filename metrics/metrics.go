package metrics

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
)

// DefaultMethodLimit bounds the methods labelled apart, as the report's
// breakdown does (report.DefaultMethodLimit).
const DefaultMethodLimit = report.DefaultMethodLimit

// otherMethod is the label of the methods past the limit; noMethod of a
// message with none.
const (
	otherMethod = "(other)"
	noMethod    = "(none)"
)

// Metrics counts one replay's events and serves them (ServeHTTP). Its
// methods are safe for concurrent use.
type Metrics struct {
	info    [][2]string // replayctl_run_info's labels, in order
	buckets []time.Duration

	methods  *family[methodSeries]
	faults   *family[atomic.Uint64] // key: fault kind
	retries  *family[atomic.Uint64] // key: reason
	holds    *family[atomic.Uint64] // key: reason
	lag      *histogram
	held     *histogram
	reconn   atomic.Uint64
	events   atomic.Uint64
	lastTUS  atomic.Int64
	runEnded atomic.Bool

	started, completed, stopped atomic.Uint64
	alive                       atomic.Int64
	mu                          sync.Mutex          // guards dialled
	dialled                     map[string]struct{} // sessions dialled and not ended
}

// methodSeries is what is counted of one method.
type methodSeries struct {
	label                               string // the method, or "(other)"
	requests, answers, failures, errors atomic.Uint64
	latency                             *histogram
	verdicts                            *family[atomic.Uint64] // key: the verdict
}

// Option sets up Metrics.
type Option func(*settings)

type settings struct {
	info        [][2]string
	buckets     []time.Duration
	methodLimit int
}

// Info adds a label to replayctl_run_info (e.g. "command", "run"); the
// labels are written in the order given. A name that is not a valid
// Prometheus label name is left out.
func Info(name, value string) Option {
	return func(s *settings) {
		if validLabelName(name) {
			s.info = append(s.info, [2]string{name, value})
		}
	}
}

// Buckets sets the upper bounds of the latency, lag and held histograms
// (default DefaultBuckets); they are sorted, and bounds not above zero
// left out.
func Buckets(bounds ...time.Duration) Option {
	return func(s *settings) {
		b := slices.DeleteFunc(slices.Clone(bounds), func(d time.Duration) bool { return d <= 0 })
		slices.Sort(b)
		s.buckets = slices.Compact(b)
	}
}

// MethodLimit bounds the methods labelled apart (default
// DefaultMethodLimit); the others are counted under method="(other)".
// n <= 0 keeps the default.
func MethodLimit(n int) Option {
	return func(s *settings) {
		if n > 0 {
			s.methodLimit = n
		}
	}
}

// New returns empty Metrics.
func New(opts ...Option) *Metrics {
	s := settings{buckets: DefaultBuckets, methodLimit: DefaultMethodLimit}
	for _, o := range opts {
		o(&s)
	}
	m := &Metrics{info: s.info, buckets: s.buckets, dialled: map[string]struct{}{}}
	counter := func(string) *atomic.Uint64 { return new(atomic.Uint64) }
	m.methods = newFamily(func(key string) *methodSeries {
		return &methodSeries{label: key, latency: newHistogram(s.buckets), verdicts: newFamily(counter, 16, "(other)")}
	}, s.methodLimit, otherMethod)
	m.faults = newFamily(counter, 64, "(other)")
	m.retries = newFamily(counter, 64, "(other)")
	m.holds = newFamily(counter, 64, "(other)")
	m.lag = newHistogram(s.buckets)
	m.held = newHistogram(s.buckets)
	return m
}

// Consumer is m as a lossless reader of the replay's event stream
// (replay.Events): it counts every event; observing is cheaper than
// delivering one, so it does not hold the replay up.
func (m *Metrics) Consumer() event.Consumer {
	return event.Consumer{Name: "metrics", Handle: func(batch []event.Event) error {
		for i := range batch {
			m.Observe(&batch[i])
		}
		return nil
	}}
}

// Observe counts one event. It does not block beyond a short lock the
// first time a method (or fault kind, retry or hold reason, verdict) is
// seen, and when a session is dialled or ends. e is not kept.
func (m *Metrics) Observe(e *event.Event) {
	m.events.Add(1)
	if e.TUS > m.lastTUS.Load() { // one observer in practice: a rare lost race only delays the gauge
		m.lastTUS.Store(e.TUS)
	}
	switch e.Type {
	case event.Sent:
		if e.Kind == report.KindRequest {
			m.method(e.Method).requests.Add(1)
		}
	case event.Answered:
		m.method(e.Method).answers.Add(1)
	case event.Judged:
		m.judged(e)
	case event.Held:
		m.holds.get(e.Reason).Add(1)
	case event.Fault:
		m.faults.get(e.Reason).Add(1)
	case event.Retry:
		m.retries.get(e.Reason).Add(1)
	case event.Reconnect:
		m.reconn.Add(1)
	case event.Dialled:
		m.mu.Lock()
		if _, ok := m.dialled[e.Session]; !ok {
			m.dialled[e.Session] = struct{}{}
			m.started.Add(1)
			m.alive.Add(1)
		}
		m.mu.Unlock()
	case event.SessionEnded:
		m.mu.Lock()
		if _, ok := m.dialled[e.Session]; ok {
			delete(m.dialled, e.Session)
			m.alive.Add(-1)
		}
		m.mu.Unlock()
		if e.Detail == "" {
			m.completed.Add(1)
		} else {
			m.stopped.Add(1)
		}
	case event.RunEnded:
		m.runEnded.Store(true)
	}
}

// Ended says whether the run's end (event.RunEnded) was observed: the
// counts are final.
func (m *Metrics) Ended() bool { return m.runEnded.Load() }

func (m *Metrics) judged(e *event.Event) {
	s := m.method(e.Method)
	switch report.Verdict(e.Verdict) {
	case report.Failed:
		s.failures.Add(1)
	case report.Error, report.Timeout:
		s.errors.Add(1)
	}
	if e.HasLatency {
		s.latency.observe(e.Latency)
	}
	if e.HasLag {
		m.lag.observe(e.Lag)
	}
	if e.HasHeld {
		m.held.observe(e.Held)
	}
	s.verdicts.get(e.Verdict).Add(1)
}

// method is the series of a method, "(other)"'s past the limit.
func (m *Metrics) method(name string) *methodSeries {
	if name == "" {
		name = noMethod
	}
	return m.methods.get(name)
}
