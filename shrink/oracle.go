package shrink

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/replayctl/replayctl/report"
)

// The kinds of failure the oracle tells apart.
const (
	// KindDifference: an answer differed from the recording (Path says
	// where, the first path the validator named).
	KindDifference = "difference"
	// KindCrash: the target died or its connection failed.
	KindCrash = "crash"
	// KindTimeout: no answer came in time.
	KindTimeout = "timeout"
	// KindProtocol: an answer that was no valid answer, or none where the
	// protocol needs one.
	KindProtocol = "protocol"
)

// Failure is one failure of a replay, as the oracle compares them: its
// kind, the message it happened at (by session and recorded seq; -1 when
// a session's connection died with no message in flight) and, for a
// difference, its path. Two failures are the same when Same says so.
type Failure struct {
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
	Method  string `json:"method,omitempty"`
	Name    string `json:"name,omitempty"` // the tool, prompt or resource
	Path    string `json:"path,omitempty"`
	// Paths are every path that differed (a difference); Same looks for
	// the target's Path among them.
	Paths  []string `json:"-"`
	Detail string   `json:"detail,omitempty"`
}

// String names the failure in one line: "crash at s3 seq 41 (tools/call c)".
func (f Failure) String() string {
	what := f.Kind
	if f.Kind == KindDifference {
		what = "difference at " + cmp.Or(f.Path, "$")
	}
	where := fmt.Sprintf("%s seq %d", f.Session, f.Seq)
	if f.Seq < 0 {
		where = f.Session + " (no message in flight)"
	}
	if f.Method != "" {
		m := f.Method
		if f.Name != "" {
			m += " " + f.Name
		}
		where += " (" + m + ")"
	}
	return what + " at " + where
}

// Same reports whether g is the same failure as the target f: the same
// kind at the same message (session and recorded seq) and, for a
// difference, f's path among g's.
func (f Failure) Same(g Failure) bool {
	if f.Kind != g.Kind || f.Session != g.Session || f.Seq != g.Seq {
		return false
	}
	return f.Kind != KindDifference || slices.Contains(g.Paths, f.Path)
}

// FailureOf is the failure a result shows, if any: a pure function.
func FailureOf(r report.Result) (Failure, bool) {
	f := Failure{Session: r.Session, Seq: r.Seq, Method: r.Method, Name: r.Name, Detail: r.Err}
	switch r.Verdict {
	case report.Failed:
		f.Kind = KindDifference
		for _, d := range r.Differences {
			f.Paths = append(f.Paths, d.Path)
		}
		if len(f.Paths) > 0 {
			f.Path = f.Paths[0]
			f.Detail = r.Differences[0].String()
		}
	case report.Timeout:
		f.Kind = KindTimeout
	case report.Error:
		f.Kind = KindProtocol
		if (r.ErrKind == "target" || r.ErrKind == "transport") && !strings.HasPrefix(r.Err, notJSONRPC) {
			f.Kind = KindCrash
			// A target that fails stops the run, and the messages other
			// sessions had in flight fail with its error: they are the
			// crash's echo, not failures of their own.
			if s, ok := failedSession(r.Err); ok && s != r.Session {
				return Failure{}, false
			}
		}
	default:
		return Failure{}, false
	}
	return f, true
}

// first is the failure a shrink aims at among a run's: the first on a
// message, in tape order (a crash with no message in flight only when
// there is none on a message).
func first(fs []Failure) (Failure, bool) {
	if len(fs) == 0 {
		return Failure{}, false
	}
	return slices.MinFunc(fs, func(a, b Failure) int {
		if (a.Seq < 0) != (b.Seq < 0) {
			if a.Seq < 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Session, b.Session))
	}), true
}

// reproduces reports whether the target failure is among fs.
func reproduces(target Failure, fs []Failure) bool {
	return slices.ContainsFunc(fs, target.Same)
}

// notJSONRPC starts the error of a message from the target that is not
// JSON-RPC (the engine's words): a protocol error, not a crash.
const notJSONRPC = "target sent a message that is not JSON-RPC"

// failedSession is the session a target failure names: the engine writes
// "…target failed: session NAME: why".
func failedSession(err string) (string, bool) {
	const mark = "target failed: session "
	i := strings.Index(err, mark)
	if i < 0 {
		return "", false
	}
	rest := err[i+len(mark):]
	j := strings.Index(rest, ": ")
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}
