package report

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/replayctl/replayctl/validator"
)

// Verdict is the outcome of one replayed message.
type Verdict string

// The verdicts the engine gives a [Result].
const (
	// Passed: the answer (or the server message) matched the recording.
	Passed Verdict = "passed"
	// Warned: it differed, but the validation rule said "warn". A warned
	// check counts as passed and in validation.warnings.
	Warned Verdict = "warned"
	// Failed: it differed from the recording; Differences says how.
	Failed Verdict = "failed"
	// Skipped: the message was not replayed (filter, rule on_failure: skip).
	Skipped Verdict = "skipped"
	// Error: the message could not be replayed or answered; Err says why.
	Error Verdict = "error"
	// Timeout: no answer came in time.
	Timeout Verdict = "timeout"
	// Sent: a message with nothing to check (a client notification).
	Sent Verdict = "sent"
)

// Direction values of [Result.Dir].
const (
	DirC2S = "c2s"
	DirS2C = "s2c"
)

// Kind values of [Result.Kind].
const (
	KindRequest      = "request"
	KindNotification = "notification"
	KindResponse     = "response"
	KindError        = "error"
)

// Result is what the engine tells the report about one replayed message. It
// is a plain value; the collector keeps a copy of its Differences, each
// value cut to an excerpt of at most [MaxValueBytes] (see
// [BoundDifferences]), and of its Err at most as much.
//
// For a client message (Dir "c2s") Sent is when it went out and Answered,
// for a request, when its answer arrived. For a server message (Dir "s2c")
// Answered is when it arrived and Sent stays zero. Zero times mean "not
// applicable": notifications have no Answered; in fast mode Due == Sent.
type Result struct {
	Seq     int64
	Session string
	Method  string
	Dir     string // "c2s" or "s2c"
	Kind    string // request, notification, response, error
	// Name is what a request acts on, for the report's per-name
	// breakdown: params.name of tools/call and prompts/get, params.uri of
	// resources/read (mcp.RequestName); "" for other methods.
	Name string

	Due, Sent, Answered time.Time
	// Lag is the schedule lag: the replayer's own lateness, the time it
	// was free to send the message and did not. When zero and both Due and
	// Sent are set, Sent − Due − Held is used.
	Lag time.Duration
	// Held is the time the message waited past its due time for causal
	// order (an answer the recording had before it) or for the in-flight
	// limit: the target's answers set that pace, and it does not count
	// against delivering the load. Due + Held + Lag ≈ Sent.
	Held time.Duration

	Verdict     Verdict
	Differences []Difference
	Err         string // when Verdict is Error or Timeout
	ErrKind     string // e.g. "timeout", "transport", "unexpected_answer"

	// The bytes themselves, for front ends that show them (the debugger);
	// the collector keeps none of them.
	Out      []byte // what was sent (after transforms), nil if nothing
	Answer   []byte // what came back, nil if nothing
	Recorded []byte // the recorded answer it was compared with, nil if none
}

// Difference is one place where the actual message differs from the
// recording, as the validator found it: a [validator.Difference], which a
// conversion makes one. Expected and Actual are JSON; nil means absent.
// Bytes that are not valid JSON are reported as a JSON string. In a
// report (and in the engine's results) a value longer than
// [MaxValueBytes] is an excerpt: a JSON string of its start and its size.
//
// It is a type of its own, not an alias, for its JSON only: a report
// writes an absent value as null ("expected": null), as reports always
// have, where the validator and the mock leave it out.
type Difference validator.Difference

// MarshalJSON writes d with absent values as null. The caller's encoder
// escapes HTML or not, as it does the rest.
func (d Difference) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Path     string          `json:"path"`
		Expected json.RawMessage `json:"expected"`
		Actual   json.RawMessage `json:"actual"`
		Kind     string          `json:"kind"`
	}{d.Path, d.Expected, d.Actual, string(d.Kind)})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// String shows the difference on one line: its path, the expected and
// the actual value (compacted, long ones cut, "(absent)" for none).
func (d Difference) String() string {
	path := d.Path
	if path == "" {
		path = "$"
	}
	return path + ": expected " + display(d.Expected) + ", got " + display(d.Actual)
}

// Fault is one fault the chaos stage injected.
type Fault struct {
	Seq     int64  `json:"seq"`
	Session string `json:"session"`
	Kind    string `json:"kind"`
	Detail  string `json:"detail"`
}
