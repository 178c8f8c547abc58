package coord

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/report"
)

// Defaults of the coordinator's options.
const (
	DefaultInterval        = time.Second
	DefaultHeartbeat       = 10 * time.Second
	DefaultStartLead       = time.Second
	DefaultRegisterTimeout = 5 * time.Minute
	// MaxBody bounds a call's body (an interval or final report).
	MaxBody = 64 << 20
)

// Option configures a [Server].
type Option func(*Server)

// Token requires every call to carry "Authorization: Bearer token"; ""
// (the default) requires none.
func Token(token string) Option { return func(s *Server) { s.token = token } }

// Thresholds are judged on the merged data, besides those the shards
// register with.
func Thresholds(ts ...report.Threshold) Option {
	return func(s *Server) { s.thresholds = append(s.thresholds, ts...) }
}

// AbortOnFail stops every shard as soon as a threshold fails on the
// merged interval reports (those that can be judged before the end: see
// the package doc).
func AbortOnFail() Option { return func(s *Server) { s.abortOnFail = true } }

// Every is how often shards stream an interval report (default 1s).
func Every(d time.Duration) Option { return func(s *Server) { s.interval = d } }

// Heartbeat is how long a registered shard may go unheard of (no call,
// no poll open) before it is named lost (default 10s).
func Heartbeat(d time.Duration) Option { return func(s *Server) { s.heartbeat = d } }

// StartLead is how far after the barrier (the last shard registered) the
// common start is put, so that every shard hears of it in time (default
// 1s).
func StartLead(d time.Duration) Option { return func(s *Server) { s.lead = d } }

// RegisterTimeout bounds the wait for every shard to register (default
// 5m); past it, the run fails, naming the missing shards.
func RegisterTimeout(d time.Duration) Option { return func(s *Server) { s.registerTimeout = d } }

// Logger logs the run's events (shards registered, lost, stopped).
func Logger(l zerolog.Logger) Option { return func(s *Server) { s.log = l } }
