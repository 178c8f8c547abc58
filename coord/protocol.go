package coord

import (
	"errors"
	"time"

	"github.com/replayctl/replayctl/report"
)

// The coordinator's endpoints (see the package doc for the protocol).
const (
	PathRegister = "/v1/register"
	PathStart    = "/v1/start"
	PathControl  = "/v1/control"
	PathInterval = "/v1/interval"
	PathFinal    = "/v1/final"
)

// Environment variables a shard process reads (replayctl run): the
// coordinator's URL, the shared secret, and the shard's index.
const (
	EnvURL   = "REPLAYCTL_COORDINATOR"
	EnvToken = "REPLAYCTL_COORDINATOR_TOKEN"
	// EnvIndex is the shard's index; when it is unset, EnvJobIndex (set by
	// Kubernetes in an Indexed Job's pods) is read.
	EnvIndex    = "REPLAYCTL_SHARD_INDEX"
	EnvJobIndex = "JOB_COMPLETION_INDEX"
	// EnvLocal is set ("1") in the shard processes of RunLocal: their
	// stderr is their runner's, which says once what every shard would
	// say alike (a bad tape's error).
	EnvLocal = "REPLAYCTL_SHARD_LOCAL"
)

// Action is what the coordinator tells a shard to do.
type Action string

// The actions.
const (
	// Run: replay the shard's share, from the common start.
	Run Action = "run"
	// Resume: the same process reconnected after a lost connection; go
	// on with the replay it is doing.
	Resume Action = "resume"
	// Continue: nothing new (a long poll that ended without news); ask
	// again.
	Continue Action = "continue"
	// Stop: stop replaying (Reason says why) and send the final report of
	// what was replayed, if anything was.
	Stop Action = "stop"
)

// Hello is what a shard registers with: who it is and what it replays.
type Hello struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Fingerprint is a digest of the tape, the config file and the run
	// flags (but the shard's own): every shard of a run must have the
	// same.
	Fingerprint string `json:"fingerprint"`
	// Attempt names the process: a retried process has a new one, a
	// process that reconnects keeps its own.
	Attempt string `json:"attempt"`
	// Thresholds are the shard's thresholds (its --threshold and config
	// file's), judged by the coordinator on the merged data.
	Thresholds []string `json:"thresholds,omitempty"`
}

// Reply is the coordinator's answer to every call.
type Reply struct {
	Action Action `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Kind is, with Stop, the stop's kind: report.StopInterrupted when
	// the coordinator was interrupted (its run is then interrupted, and
	// so is each shard's report), else report.StopFailure ("" from a
	// coordinator that does not say: a failure).
	Kind report.StopKind `json:"stop_kind,omitempty"`
	// Start is the common start (Run, Resume, and the start poll once the
	// barrier is met).
	Start time.Time `json:"start,omitzero"`
	// Interval is how often the shard streams an interval report;
	// Heartbeat how long the coordinator waits without news from a
	// running shard before it names it lost (the shard retries a failed
	// call for as long).
	Interval  time.Duration `json:"interval,omitempty"`
	Heartbeat time.Duration `json:"heartbeat,omitempty"`
}

// Interval is one interval report a shard streams: what it judged since
// its last one, without loss (report.Report's histograms section).
type Interval struct {
	Index   int    `json:"index"`
	Attempt string `json:"attempt"`
	Seq     int    `json:"seq"` // 1, 2, …: a repeat (a retried call) is counted once
	// FirstSent is when the shard sent its first request, once it has.
	FirstSent time.Time      `json:"first_sent,omitzero"`
	Report    *report.Report `json:"report"`
}

// Final is a shard's last call: its whole report, or why it has none.
type Final struct {
	Index     int            `json:"index"`
	Attempt   string         `json:"attempt"`
	FirstSent time.Time      `json:"first_sent,omitzero"`
	Report    *report.Report `json:"report,omitempty"`
	Error     string         `json:"error,omitempty"`
}

// ErrRefused is wrapped by the client's errors when the coordinator
// refused a call for good (a bad token, another run's fingerprint, an
// index out of range): retrying cannot help.
var ErrRefused = errors.New("coord: the coordinator refused the shard")

// wireError is the body of a refusal.
type wireError struct {
	Error string `json:"error"`
}
