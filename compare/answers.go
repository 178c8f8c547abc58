package compare

import (
	"bytes"
	"sync"

	"github.com/replayctl/replayctl/report"
)

// key is what pairs the answers of two runs of one tape: the session and
// the seq of the message answered (or of the server's message).
type key struct {
	Session string
	Seq     int64
}

// answer is one run's answer to a message, or the lack of one.
type answer struct {
	method, name string
	msg          []byte // nil: no answer came
}

// answers collects one run's answers from its OnResult hook: the answer
// to each client request, answered or not, and each server message
// judged. The hook is called from one goroutine; the mutex keeps the
// race detector and a reader after Run honest.
type answers struct {
	mu       sync.Mutex // guards the fields below
	byKey    map[key]answer
	order    []key // first seen first
	answered int
}

func newAnswers() *answers { return &answers{byKey: map[key]answer{}} }

// add is the OnResult hook.
func (a *answers) add(r report.Result) {
	request := r.Dir == report.DirC2S && r.Kind == report.KindRequest
	if r.Seq < 0 || (!request && r.Answer == nil) {
		return // a session's end, a notification sent, a skip
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	k := key{r.Session, r.Seq}
	if _, seen := a.byKey[k]; !seen {
		a.order = append(a.order, k)
	}
	a.byKey[k] = answer{method: r.Method, name: r.Name, msg: bytes.Clone(r.Answer)}
	if r.Answer != nil {
		a.answered++
	}
}
