package mock

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

// Server answers live clients from a tape: replayctl serve's side of the
// conversation. It implements transport.Sessions; a listener (stdio,
// Streamable HTTP, legacy SSE) opens a Session for each client it
// accepts and hands it the client's messages. It is safe for concurrent
// use. See the package documentation for how requests are matched, bound
// to recorded sessions and answered.
type Server struct {
	idx        *index
	strategy   Strategy
	vol        *volatile
	latency    float64
	repeat     bool
	askTimeout time.Duration
	chaos      *Chaos
	onMiss     MissHandler
	log        zerolog.Logger
	maxMisses  int

	nextAsk atomic.Int64 // the ids of the requests sent to clients
	rr      atomic.Int64 // round-robin over the recorded sessions a first request matches

	mu       sync.Mutex // guards the fields below
	copies   map[string]int
	shared   map[string]*sharedCursor
	pending  map[string]chan []byte // requests to clients, by id, waiting for their answers
	misses   []Miss                 // the first maxMisses
	missed   int                    // every miss, kept or not
	injected []Injected
	spared   map[sparedAnswer]bool           // answers a fault kept from the client: the next goes unfaulted
	checkers map[string]*validator.Validator // by method: volatile fields ignored

	discoverOnce sync.Once
	discovery    *discovery // the recorded server/discover answer (see discovered)
}

// sharedCursor is the one cursor of a recorded session that all its
// stateless traffic moves.
type sharedCursor struct {
	mu  sync.Mutex // guards cur
	cur cursor
}

// ServerOption configures a Server.
type ServerOption func(*serverConfig)

type serverConfig struct {
	strategy   Strategy
	volatile   []string
	noDefaults bool
	latency    float64
	repeat     bool
	askTimeout time.Duration
	chaos      *Chaos
	onMiss     MissHandler
	log        zerolog.Logger
	tapeOpts   []tape.Option
	maxMisses  int
}

// DefaultAskTimeout is how long a session waits for the client's answer
// to a request the server sends it (sampling, elicitation, roots).
const DefaultAskTimeout = 30 * time.Second

// WithStrategy sets how live requests are matched to recorded ones
// (default MethodAndParams).
func WithStrategy(s Strategy) ServerOption { return func(c *serverConfig) { c.strategy = s } }

// WithVolatile adds request members left out of matching, to
// DefaultVolatile's (or, after WithoutDefaultVolatile, alone): paths as
// the validator writes them, inside params, each for every method or,
// prefixed "method:", for one ("tools/call:params.arguments.requestId").
// NewServer fails on a path it cannot read.
func WithVolatile(paths ...string) ServerOption {
	return func(c *serverConfig) { c.volatile = append(c.volatile, paths...) }
}

// WithoutDefaultVolatile drops DefaultVolatile: only WithVolatile's paths
// are left out of matching.
func WithoutDefaultVolatile() ServerOption { return func(c *serverConfig) { c.noDefaults = true } }

// WithLatency sets how long answers take: 0 (the default) at once; 1 as
// recorded (each server message sent as long after the live request as
// it was recorded after the recorded one); f that recorded time × f.
// Negative is taken as 0.
func WithLatency(factor float64) ServerOption {
	return func(c *serverConfig) { c.latency = max(factor, 0) }
}

// WithRepeat lets a session-based client ask a request more often than
// recorded: once every matching recorded request has been answered, they
// are answered again, in recorded order. Without it that is a miss.
// Stateless traffic always repeats (its cursor is shared by every client).
func WithRepeat() ServerOption { return func(c *serverConfig) { c.repeat = true } }

// WithAskTimeout sets how long a session waits for the client's answer to
// a recorded request of the server (default DefaultAskTimeout); then it
// records a Miss and goes on with the answer.
func WithAskTimeout(d time.Duration) ServerOption {
	return func(c *serverConfig) { c.askTimeout = d }
}

// DefaultMaxMisses is how many misses a Server keeps in detail
// (WithMaxMisses).
const DefaultMaxMisses = 1000

// WithMaxMisses sets how many misses a Server keeps in detail (Misses)
// and logs as warnings: the first n. Later ones are only counted
// (MissCount), so that a client missing without end costs no memory.
// 0 or less means DefaultMaxMisses.
func WithMaxMisses(n int) ServerOption { return func(c *serverConfig) { c.maxMisses = n } }

// WithChaos gives the clients the faults of plan (NewChaos); nil is none.
func WithChaos(plan *Chaos) ServerOption { return func(c *serverConfig) { c.chaos = plan } }

// WithLogger sets the logger (default: none). Misses are logged at warn
// level, faults at info, sessions at debug.
func WithLogger(l zerolog.Logger) ServerOption { return func(c *serverConfig) { c.log = l } }

// WithServerTapeOptions passes options to the tape reader.
func WithServerTapeOptions(opts ...tape.Option) ServerOption {
	return func(c *serverConfig) { c.tapeOpts = append(c.tapeOpts, opts...) }
}

// NewServer reads and indexes the tape src, and returns a Server that
// answers from it. It returns an error when the tape cannot be read or an
// option is wrong (an unknown strategy, a volatile path it cannot read),
// saying which. Reading a large tape takes a while; ctx is not watched.
func NewServer(src tape.Source, opts ...ServerOption) (*Server, error) {
	cfg := serverConfig{strategy: MethodAndParams, askTimeout: DefaultAskTimeout, log: zerolog.Nop()}
	for _, o := range opts {
		o(&cfg)
	}
	st, err := ParseStrategy(string(cfg.strategy))
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	specs := cfg.volatile
	if !cfg.noDefaults {
		specs = append(DefaultVolatile(), specs...)
	}
	vol, err := parseVolatile(specs)
	if err != nil {
		return nil, fmt.Errorf("mock: %w", err)
	}
	sv := &serveBuild{}
	if st != Exact {
		sv.volatile = vol
	}
	idx, _, err := readIndexWith(src, cfg.tapeOpts, sv, false)
	if err != nil {
		return nil, err
	}
	if cfg.askTimeout <= 0 {
		cfg.askTimeout = DefaultAskTimeout
	}
	if cfg.maxMisses <= 0 {
		cfg.maxMisses = DefaultMaxMisses
	}
	s := &Server{
		idx: idx, strategy: st, vol: vol, latency: cfg.latency, repeat: cfg.repeat,
		askTimeout: cfg.askTimeout, chaos: cfg.chaos, onMiss: cfg.onMiss, maxMisses: cfg.maxMisses, log: cfg.log.With().Str("stage", "serve").Logger(),
		copies: map[string]int{}, shared: map[string]*sharedCursor{},
		pending: map[string]chan []byte{}, checkers: map[string]*validator.Validator{},
	}
	for _, name := range idx.order {
		s.shared[name] = &sharedCursor{cur: newCursor(len(idx.sessions[name]))}
	}
	return s, nil
}

var _ transport.Sessions = (*Server)(nil)

// Open returns a session for a client a listener accepted. It does not
// block and never fails: the session binds itself to a recorded session
// when its first request arrives (see the package documentation).
func (s *Server) Open(ctx context.Context, info transport.SessionInfo) (transport.Session, error) {
	s.log.Debug().Str("session", info.ID).Bool("stateless", info.Stateless).Msg("session opened")
	return newSession(s, info), nil
}

// Misses returns the misses so far (the first WithMaxMisses of them; see
// MissCount for all), in the order they happened: requests
// the tape had no answer for, and requests of the tape the client did not
// answer in time. The CLI lists them when it stops; --strict exits 1 when
// there is any.
func (s *Server) Misses() []Miss {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.misses)
}

// Injected returns the faults given to clients so far, by session copy
// name and recorded seq (the order of a report, whatever order they
// happened in).
func (s *Server) Injected() []Injected {
	s.mu.Lock()
	out := slices.Clone(s.injected)
	s.mu.Unlock()
	sortInjected(out)
	return out
}

// Chaos returns the server's chaos plan, nil when it has none.
func (s *Server) Chaos() *Chaos { return s.chaos }

// addMiss keeps m (the first maxMisses) and counts it; it logs the kept
// ones as warnings, the rest at debug level.
func (s *Server) addMiss(m *Miss) {
	s.mu.Lock()
	s.missed++
	kept := len(s.misses) < s.maxMisses
	if kept {
		s.misses = append(s.misses, *m)
	}
	n := s.missed
	s.mu.Unlock()
	ev := s.log.Warn()
	if !kept {
		ev = s.log.Debug()
	}
	ev.Str("session", m.Session).Str("method", m.Method).Msg("miss: " + m.String())
	if n == s.maxMisses+1 {
		s.log.Warn().Int("kept", s.maxMisses).Msg("more misses than are kept (--max-misses): further ones are counted, not kept or logged")
	}
}

// MissCount is how many misses there were, the ones Misses keeps and the
// ones only counted.
func (s *Server) MissCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.missed
}

// spare notes that the answer to recorded request seq of copy was kept
// from the client by a fault: the next time it is answered, it goes
// without one.
func (s *Server) spare(copyName string, seq int64) {
	s.mu.Lock()
	if s.spared == nil {
		s.spared = map[sparedAnswer]bool{}
	}
	s.spared[sparedAnswer{copyName, seq}] = true
	s.mu.Unlock()
}

// takeSpared reports whether the answer to seq of copy is spared its
// fault this time (see spare), and takes the note.
func (s *Server) takeSpared(copyName string, seq int64) bool {
	k := sparedAnswer{copyName, seq}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.spared[k] {
		return false
	}
	delete(s.spared, k)
	return true
}

// sparedAnswer names an answer a fault kept from the client.
type sparedAnswer struct {
	copy string
	seq  int64
}

func (s *Server) addInjected(in Injected) {
	s.log.Info().Str("session", in.Session).Int64("seq", in.Seq).Str("fault", string(in.Kind)).Msg(in.Detail)
	s.mu.Lock()
	s.injected = append(s.injected, in)
	s.mu.Unlock()
}

// newCopy returns the copy name of the next live session bound to
// recorded session name: "name#k" for the k-th.
func (s *Server) newCopy(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.copies[name]++
	return name + "#" + strconv.Itoa(s.copies[name])
}

// ask registers a request to a client under a fresh id and returns the
// id and where its answer will come.
func (s *Server) ask() (id string, answer chan []byte) {
	id = strconv.FormatInt(s.nextAsk.Add(1), 10)
	answer = make(chan []byte, 1)
	s.mu.Lock()
	s.pending[id] = answer
	s.mu.Unlock()
	return id, answer
}

// forget drops a request to a client that will not be waited for.
func (s *Server) forget(id string) {
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// deliver hands a client's answer to the request waiting for it; false
// when none is (an answer to nothing, or too late).
func (s *Server) deliver(id string, msg []byte) bool {
	s.mu.Lock()
	ch, ok := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if ok {
		ch <- msg // buffered: never blocks
	}
	return ok
}

// checker returns the validator that compares requests of method, its
// volatile fields ignored.
func (s *Server) checker(method string) *validator.Validator {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.checkers[method]
	if !ok {
		var pats []string
		if s.strategy != Exact {
			pats = s.vol.patterns(method)
		}
		var err error
		if v, err = validator.New(validator.WithIgnore(pats...)); err != nil {
			v, _ = validator.New() // the volatile paths were read by parseVolatile already
		}
		s.checkers[method] = v
	}
	return v
}
