package ui

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/replayctl/replayctl/report"
)

// bodies keeps what the detail view shows of each judged message: its
// verdict, error and differences (for a message that did not pass; they
// are bounded by the report's excerpts), and its bytes (as sent, the live
// answer, the recorded answer), while what is kept stays under max bytes
// (each message counted as its bytes and entryCost), a passed message's
// under an eighth of it, so that the failures of a long run keep room. Past
// the bound a passed message is not kept, another one without its bytes,
// and the page says so.
//
// Messages are kept in the order they were judged, in a slice: adding is
// an append on the replay's validate goroutine (no hashing, no
// allocation of its own), and a lookup, a person's click, scans it from
// the newest.
type bodies struct {
	mu    sync.Mutex // guards what follows: the validate stage adds, viewers read
	max   int64
	bytes int64
	kept  []kept
}

// entryCost is what one kept message costs besides its bytes.
const entryCost = 320

// kept is one message's result, its bytes dropped when over the bound.
type kept struct {
	r       report.Result
	noBytes bool
}

func newBodies(max int64) *bodies { return &bodies{max: max} }

// add keeps r (see bodies). The bytes are the engine's, never changed
// after the result is made; they are kept, not copied.
func (b *bodies) add(r report.Result) {
	size := int64(len(r.Out)+len(r.Answer)+len(r.Recorded)) + entryCost
	ok := r.Verdict == report.Passed || r.Verdict == report.Sent
	b.mu.Lock()
	defer b.mu.Unlock()
	limit := b.max
	if ok {
		limit /= 8
	}
	if b.bytes+size <= limit {
		b.bytes += size
		b.kept = append(b.kept, kept{r: r})
		return
	}
	if ok || b.bytes+entryCost > b.max {
		return
	}
	b.bytes += entryCost
	r.Out, r.Answer, r.Recorded = nil, nil, nil
	r.Differences = report.BoundDifferences(r.Differences)
	b.kept = append(b.kept, kept{r: r, noBytes: true})
}

func (b *bodies) get(session string, seq int64) (kept, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.kept) - 1; i >= 0; i-- {
		if k := &b.kept[i]; k.r.Seq == seq && k.r.Session == session {
			return *k, true
		}
	}
	return kept{}, false
}

// detail is what GET /api/message answers.
type detail struct {
	Session     string              `json:"session"`
	Seq         int64               `json:"seq"`
	Method      string              `json:"method"`
	Name        string              `json:"name,omitempty"`
	Dir         string              `json:"dir"`
	Kind        string              `json:"kind"`
	Verdict     string              `json:"verdict"`
	Error       string              `json:"error,omitempty"`
	ErrKind     string              `json:"error_kind,omitempty"`
	Sent        json.RawMessage     `json:"sent"`
	Answer      json.RawMessage     `json:"answer"`
	Recorded    json.RawMessage     `json:"recorded"`
	Differences []report.Difference `json:"differences"`
	// NotKept: the bytes were past the bound (--ui-bodies).
	NotKept bool `json:"not_kept,omitempty"`
}

// serveMessage answers GET /api/message?session=S&seq=N: the message's
// bytes and differences, or 404.
func (s *Server) serveMessage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	seq, err := strconv.ParseInt(q.Get("seq"), 10, 64)
	if err != nil {
		http.Error(w, "seq: want a number", http.StatusBadRequest)
		return
	}
	k, ok := s.bodies.get(q.Get("session"), seq)
	if !ok {
		http.Error(w, "no such message kept: session "+q.Get("session")+" seq "+q.Get("seq")+" (not judged yet, or past the --ui-bodies bound)", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(detailOf(k))
}

func detailOf(k kept) detail {
	d := detail{Session: k.r.Session, Seq: k.r.Seq, Method: k.r.Method, Name: k.r.Name, Dir: k.r.Dir, Kind: k.r.Kind,
		Verdict: string(k.r.Verdict), Error: k.r.Err, ErrKind: k.r.ErrKind,
		Sent: rawJSON(k.r.Out), Answer: rawJSON(k.r.Answer), Recorded: rawJSON(k.r.Recorded),
		Differences: k.r.Differences, NotKept: k.noBytes}
	if d.Differences == nil {
		d.Differences = []report.Difference{}
	}
	return d
}

// rawJSON is b when it is JSON, else b as a JSON string; null for none.
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	if json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
}
