package coord

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/report"
)

// Server is the coordinator: an http.Handler that shards connect to, and
// Run, which waits for the run to end and merges its report.
//
// Its state is guarded by one mutex, held only to read or change it
// (never while waiting); waiters wait on channels: changed is closed and
// replaced at every change.
type Server struct {
	// Set by New, then read only.
	count                     int
	token                     string
	thresholds                []report.Threshold
	abortOnFail               bool
	interval, heartbeat, lead time.Duration
	registerTimeout           time.Duration
	pollFor                   time.Duration // how long a long poll is held
	log                       zerolog.Logger

	mu              sync.Mutex // guards the fields below
	fingerprint     string     // the first registration's; every shard's must match
	shardThresholds []report.Threshold
	shards          []shard
	start           time.Time       // the common start; zero until the barrier is met
	stopped         string          // why every shard was told to stop; "" while none was
	stopKind        report.StopKind // the kind of that stop: interrupted, or a failure
	finals          map[int]*report.Report
	live            *report.Collector // the merged interval reports
	changed         chan struct{}     // closed and replaced at every change
}

// New returns the coordinator of a run of count shards.
func New(count int, opts ...Option) (*Server, error) {
	s := &Server{
		count: count, interval: DefaultInterval, heartbeat: DefaultHeartbeat,
		lead: DefaultStartLead, registerTimeout: DefaultRegisterTimeout,
		log:    zerolog.Nop(),
		shards: make([]shard, count), finals: map[int]*report.Report{},
		changed: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	switch {
	case count < 1:
		return nil, fmt.Errorf("coord: %d shards: want at least 1", count)
	case s.interval <= 0 || s.heartbeat <= 0 || s.lead < 0 || s.registerTimeout <= 0:
		return nil, fmt.Errorf("coord: interval %s, heartbeat %s, start lead %s, register timeout %s: want positive durations (the lead may be 0)", s.interval, s.heartbeat, s.lead, s.registerTimeout)
	}
	s.pollFor = min(s.heartbeat/2, 25*time.Second)
	return s, nil
}

// notify wakes every waiter; call with mu held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// ServeHTTP answers the shards' calls (see the package doc).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.token != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			s.refuse(w, r, http.StatusUnauthorized, "a missing or wrong token: give the shard the coordinator's token in "+EnvToken)
			return
		}
	}
	if r.Method != http.MethodPost {
		s.refuse(w, r, http.StatusMethodNotAllowed, "POST only")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		s.refuse(w, r, http.StatusBadRequest, "read the body: "+err.Error())
		return
	}
	var reply Reply
	code := http.StatusOK
	switch r.URL.Path {
	case PathRegister:
		var h Hello
		if err = decode(body, &h); err == nil {
			reply, code, err = s.register(h)
		}
	case PathStart, PathControl:
		var h Hello
		if err = decode(body, &h); err == nil {
			reply, code, err = s.poll(r.Context(), h, r.URL.Path == PathStart)
		}
		if err != nil && r.Context().Err() != nil {
			// The shard hung up its long poll (its run ended, or it was
			// stopped): nobody to answer, and nothing refused.
			s.log.Debug().Str("from", r.RemoteAddr).Str("call", r.URL.Path).Msg("coordinator: a shard ended its long poll")
			return
		}
	case PathInterval:
		var iv Interval
		if err = decode(body, &iv); err == nil {
			reply, code, err = s.addInterval(iv, int64(len(body)))
		}
	case PathFinal:
		var f Final
		if err = decode(body, &f); err == nil {
			reply, code, err = s.addFinal(f)
		}
	default:
		code, err = http.StatusNotFound, fmt.Errorf("no such endpoint %s", r.URL.Path)
	}
	if err != nil {
		if code == http.StatusOK {
			code = http.StatusBadRequest
		}
		s.refuse(w, r, code, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(reply)
}

func decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the body is not the JSON the protocol wants: %v", err)
	}
	return nil
}

// refuse answers a call with code and why, and says so on the
// coordinator's side: a shard's operator sees there what went wrong,
// rather than a run that waits out --register-timeout.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	s.log.Warn().Str("from", r.RemoteAddr).Str("call", r.URL.Path).Int("status", code).Msg("coordinator: refused a shard's call: " + msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(wireError{Error: msg})
}

// shardOf checks a call's index and count.
func (s *Server) shardOf(i, n int) error {
	if n != s.count || i < 0 || i >= s.count {
		return fmt.Errorf("shard %d/%d: this coordinator runs %d shards (0/%d … %d/%d): give every shard the same --shards", i, n, s.count, s.count, s.count-1, s.count)
	}
	return nil
}

func (s *Server) timing(r Reply) Reply {
	r.Interval, r.Heartbeat = s.interval, s.heartbeat
	return r
}

func (s *Server) register(h Hello) (Reply, int, error) {
	if err := s.shardOf(h.Index, h.Count); err != nil {
		return Reply{}, http.StatusConflict, err
	}
	if h.Attempt == "" {
		return Reply{}, http.StatusBadRequest, errors.New("hello.attempt is empty")
	}
	ts, err := parse(h.Thresholds)
	if err != nil {
		return Reply{}, http.StatusBadRequest, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.fingerprint == "":
		s.fingerprint, s.shardThresholds = h.Fingerprint, ts
	case h.Fingerprint != s.fingerprint:
		return Reply{}, http.StatusConflict, fmt.Errorf("shard %d/%d replays another tape, config or flags than the shards before it (fingerprint %.12s, theirs %.12s): give every shard the same tape, config file and run flags", h.Index, h.Count, h.Fingerprint, s.fingerprint)
	}
	if s.stopped != "" && s.start.IsZero() {
		return Reply{Action: Stop, Reason: s.stopped, Kind: s.stopKind}, http.StatusOK, nil
	}
	sh := &s.shards[h.Index]
	action, why, takes := admit(*sh, h.Attempt, !s.start.IsZero(), h.Index, h.Count)
	if takes {
		sh.phase, sh.attempt = registered, h.Attempt
		sh.attempts++
		sh.heard = time.Now()
		s.log.Info().Int("shard", h.Index).Int("attempt", sh.attempts).Msg("coordinator: shard registered")
		s.barrier()
		s.notify()
	} else if action == Resume {
		sh.heard = time.Now()
	}
	if action == Stop {
		s.log.Warn().Int("shard", h.Index).Str("why", why).Msg("coordinator: shard told to stop")
	}
	return s.timing(Reply{Action: action, Reason: why, Start: s.start}), http.StatusOK, nil
}

// barrier sets the common start once every shard has registered (or was
// lost for good before it: Lost); call with mu held.
func (s *Server) barrier() {
	if !s.start.IsZero() {
		return
	}
	ready := 0
	for _, sh := range s.shards {
		switch sh.phase {
		case registered:
			ready++
		case missing:
			return
		}
	}
	if ready == 0 { // every shard lost before the start
		return
	}
	s.start = time.Now().Add(s.lead)
	s.log.Info().Time("start", s.start).Msg("coordinator: every shard registered; the common start is set")
}

// poll is a long poll: of the start (start) or of a stop. It returns at
// news, or after pollFor with Continue.
func (s *Server) poll(ctx context.Context, h Hello, start bool) (Reply, int, error) {
	if err := s.shardOf(h.Index, h.Count); err != nil {
		return Reply{}, http.StatusConflict, err
	}
	s.mu.Lock()
	sh := &s.shards[h.Index]
	if sh.attempt != h.Attempt {
		s.mu.Unlock()
		return Reply{Action: Stop, Reason: fmt.Sprintf("shard %d/%d is registered by another process", h.Index, h.Count)}, http.StatusOK, nil
	}
	sh.polls++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		sh.polls--
		sh.heard = time.Now()
		s.mu.Unlock()
	}()
	t := time.NewTimer(s.pollFor)
	defer t.Stop()
	for {
		s.mu.Lock()
		reply, news := s.news(*sh, start)
		changed := s.changed
		s.mu.Unlock()
		if news {
			return s.timing(reply), http.StatusOK, nil
		}
		select {
		case <-changed:
		case <-t.C:
			return s.timing(Reply{Action: Continue}), http.StatusOK, nil
		case <-ctx.Done():
			return Reply{}, http.StatusServiceUnavailable, ctx.Err()
		}
	}
}

// news is what a poll returns now, if anything: a stop, or (a start
// poll) the start. Call with mu held.
func (s *Server) news(sh shard, start bool) (Reply, bool) {
	switch {
	case sh.phase == done:
		return Reply{Action: Stop, Reason: "its report is in"}, true
	case sh.phase == dead:
		return Reply{Action: Stop, Reason: "named lost: " + sh.why}, true
	case s.stopped != "":
		return Reply{Action: Stop, Reason: s.stopped, Kind: s.stopKind, Start: s.start}, true
	case start && !s.start.IsZero():
		return Reply{Action: Run, Start: s.start}, true
	}
	return Reply{}, false
}

func (s *Server) addInterval(iv Interval, size int64) (Reply, int, error) {
	if err := s.shardOf(iv.Index, s.count); err != nil {
		return Reply{}, http.StatusConflict, err
	}
	if iv.Report == nil {
		return Reply{}, http.StatusBadRequest, errors.New("interval.report is missing")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := &s.shards[iv.Index]
	if sh.attempt != iv.Attempt || sh.phase != registered {
		return s.timing(Reply{Action: Stop, Reason: fmt.Sprintf("shard %d/%d is %s, not replaying under this process", iv.Index, s.count, sh.phase)}), http.StatusOK, nil
	}
	sh.heard = time.Now()
	if iv.Seq <= sh.seq { // a retried call the coordinator already counted
		return s.timing(s.controlReply()), http.StatusOK, nil
	}
	if s.live == nil {
		var opts []report.Option
		if iv.Report.Handshake.Included {
			opts = append(opts, report.IncludeHandshake())
		}
		s.live = report.NewCollector(append(opts, report.WithTimelineLimit(0))...)
	}
	if err := s.live.MergeReport(iv.Report); err != nil {
		return Reply{}, http.StatusBadRequest, fmt.Errorf("shard %d/%d interval %d: %w", iv.Index, s.count, iv.Seq, err)
	}
	sh.seq = iv.Seq
	sh.intervals++
	sh.bytes += size
	if !iv.FirstSent.IsZero() {
		sh.firstSent = iv.FirstSent
	}
	if s.abortOnFail && s.stopped == "" {
		if why := s.judgeLive(); why != "" {
			s.stopAll(why, report.StopFailure)
		}
	}
	return s.timing(s.controlReply()), http.StatusOK, nil
}

func (s *Server) controlReply() Reply {
	if s.stopped != "" {
		return Reply{Action: Stop, Reason: s.stopped, Kind: s.stopKind}
	}
	return Reply{Action: Continue}
}

// stopAll tells every shard to stop, a stop of kind (interrupted, or a
// failure); call with mu held.
func (s *Server) stopAll(why string, kind report.StopKind) {
	s.stopped, s.stopKind = why, kind
	s.log.Warn().Str("why", why).Msg("coordinator: stopping every shard")
	s.notify()
}

func (s *Server) addFinal(f Final) (Reply, int, error) {
	if err := s.shardOf(f.Index, s.count); err != nil {
		return Reply{}, http.StatusConflict, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := &s.shards[f.Index]
	switch {
	case sh.attempt != f.Attempt:
		return Reply{Action: Stop, Reason: fmt.Sprintf("shard %d/%d is registered by another process", f.Index, s.count)}, http.StatusOK, nil
	case sh.phase == done:
		return Reply{Action: Stop}, http.StatusOK, nil // a retried call
	case sh.phase == dead:
		return Reply{Action: Stop, Reason: "named lost before its report came: " + sh.why}, http.StatusOK, nil
	}
	if !f.FirstSent.IsZero() {
		sh.firstSent = f.FirstSent
	}
	if f.Report == nil {
		why := f.Error
		if why == "" {
			why = "it sent no report"
		}
		s.markDead(f.Index, "ended without a report ("+why+")")
		return Reply{Action: Stop}, http.StatusOK, nil
	}
	sh.phase = done
	s.finals[f.Index] = f.Report
	s.log.Info().Int("shard", f.Index).Msg("coordinator: shard report in")
	s.notify()
	return Reply{Action: Stop}, http.StatusOK, nil
}

// markDead names shard i lost; call with mu held.
func (s *Server) markDead(i int, why string) {
	sh := &s.shards[i]
	if sh.phase == done || sh.phase == dead {
		return
	}
	sh.phase, sh.why = dead, why
	s.log.Warn().Int("shard", i).Str("why", why).Msg("coordinator: shard lost")
	s.notify()
}

// Lost names shard i lost now, for a runner that saw its process end
// (replayctl run --local-shards): why says how it ended. A shard whose
// report is in is not changed.
func (s *Server) Lost(i int, why string) {
	if i < 0 || i >= s.count {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shards[i].phase == missing {
		s.shards[i].phase = registered // it cannot come now: count it lost
	}
	s.markDead(i, "ended without a report ("+why+")")
	s.barrier()
}

// Stop tells every shard to stop for a failure (why): each sends the
// report of what it replayed, which says it failed, stopped by the
// coordinator. A stop told already stays as it was.
func (s *Server) Stop(why string) { s.stop(why, report.StopFailure) }

// Interrupt tells every shard to stop because the coordinator was
// interrupted (why): each sends the report of what it replayed, which
// says it was interrupted, and exits as a stopped shard does (replayctl:
// 0). A stop told already stays as it was.
func (s *Server) Interrupt(why string) { s.stop(why, report.StopInterrupted) }

func (s *Server) stop(why string, kind report.StopKind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == "" {
		s.stopAll(why, kind)
	}
}

func parse(exprs []string) ([]report.Threshold, error) {
	var ts []report.Threshold
	for _, e := range exprs {
		t, err := report.ParseThreshold(e)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

// allThresholds are the coordinator's and the shards', each once; call
// with mu held.
func (s *Server) allThresholds() []report.Threshold {
	out := slices.Clone(s.thresholds)
	for _, t := range s.shardThresholds {
		if !slices.ContainsFunc(out, func(o report.Threshold) bool { return o.Expr == t.Expr }) {
			out = append(out, t)
		}
	}
	return out
}
