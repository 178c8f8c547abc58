package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/english"
)

// DefaultDrain is how long a stdio recording whose client is a file
// (StdioAwaitAnswers) lets the server say nothing, once the file has
// ended and the server has answered its first request, before it gives
// up on the answers still due. It is run's --timeout, the bound a
// replay puts on one request; a recording's bound is on the server's
// silence instead (a serial server answering a long queue keeps it
// from passing, and a server slow to start is not cut before it is up).
const DefaultDrain = 30 * time.Second

// StdioDrain bounds the wait of StdioAwaitAnswers: once the client's
// input has ended, the wait ends when the server has said nothing for d
// (counted from the later of the input's end and the server's last
// message, and not before the server's first answer, so that a server
// still starting is waited for); DefaultDrain by default; 0 means no
// bound (the wait ends with the answers, the server's exit or ctx).
// Requests still unanswered when the recording ends make Stdio's error
// an *UnansweredError.
func StdioDrain(d time.Duration) StdioOption {
	return func(o *stdioOptions) { o.drain, o.drainSet = d, true }
}

// Unanswered is a request that had no answer when a recording ended.
type Unanswered struct {
	Method string
	ID     json.RawMessage // as it was sent
	// Line is the line of the sender's input it was read from (from 1;
	// 0 for the server's requests), Seq its seq on the tape.
	Line int
	Seq  int64
}

// String says which request it is: "tools/call id 3 (line 4 of the
// input, seq 6)".
func (u Unanswered) String() string {
	if u.Line > 0 {
		return fmt.Sprintf("%s id %s (line %d of the input, seq %d)", u.Method, u.ID, u.Line, u.Seq)
	}
	return fmt.Sprintf("%s id %s (seq %d)", u.Method, u.ID, u.Seq)
}

// ErrUnanswered is matched by Stdio's error when the client's input
// ended (StdioAwaitAnswers) and requests it sent were never answered.
var ErrUnanswered = errors.New("record: requests were never answered")

// UnansweredError is Stdio's error when, with StdioAwaitAnswers, the
// client's input ended and the recording ended with requests it sent
// still unanswered: StdioDrain passed, or the server exited first. The
// tape keeps them as they were sent, without answers, as a Ctrl-C
// leaves them. It matches ErrUnanswered.
type UnansweredError struct {
	Requests []Unanswered // in the order they were sent
	// Asked are the server's requests the client never answered (a
	// file cannot): a server that waits on one of them before it
	// answers never will.
	Asked []Unanswered
	// Drain is the bound that passed; 0 when the server ended first.
	Drain time.Duration
	// ClientGone: the client's output was closed (`| head`), so the
	// answers had nowhere to go.
	ClientGone bool
}

// maxListed is how many requests an UnansweredError names.
const maxListed = 10

func (e *UnansweredError) Error() string {
	return "record: " + e.What() + "; the tape keeps " + e.Them() + " as sent, unanswered" + e.Hint()
}

// Them is "it" for one request, "them" for more.
func (e *UnansweredError) Them() string {
	if len(e.Requests) == 1 {
		return "it"
	}
	return "them"
}

// Hint is what to do when the drain passed ("; give a slow server
// longer with --drain …", record's flag for StdioDrain), else "".
func (e *UnansweredError) Hint() string {
	if e.Drain > 0 {
		return "; give a slow server longer with --drain (0 waits for every answer)"
	}
	return ""
}

// What says which requests were never answered, and after what: "1
// request was never answered: the server said nothing for --drain 1s
// after the input's end: tools/call id 2 (line 3 of the input, seq 2)",
// then the server's requests the input never answered, if any.
func (e *UnansweredError) What() string {
	var b strings.Builder
	n := int64(len(e.Requests))
	b.WriteString(english.Count(n, "request"))
	if n == 1 {
		b.WriteString(" was")
	} else {
		b.WriteString(" were")
	}
	switch {
	case e.Drain > 0:
		fmt.Fprintf(&b, " never answered: the server said nothing for --drain %s after the input's end: ", e.Drain)
	case e.ClientGone:
		b.WriteString(" never answered before the client's output was closed: ")
	default:
		b.WriteString(" never answered before the server ended: ")
	}
	writeList(&b, e.Requests)
	if len(e.Asked) > 0 {
		fmt.Fprintf(&b, "; the input never answered the server's %s ", english.Plural(int64(len(e.Asked)), "request"))
		writeList(&b, e.Asked)
		b.WriteString(" (a file cannot: a request the server answers only once the client has answered it never gets its answer)")
	}
	return b.String()
}

// List names the first ten of reqs, and how many more: "tools/call id
// 3 (line 4 of the input, seq 6), ping id 5 (…) and 2 more".
func List(reqs []Unanswered) string {
	var b strings.Builder
	writeList(&b, reqs)
	return b.String()
}

// writeList writes the first maxListed of reqs, and how many more.
func writeList(b *strings.Builder, reqs []Unanswered) {
	for i, u := range reqs {
		if i == maxListed {
			fmt.Fprintf(b, " and %d more", len(reqs)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(u.String())
	}
}

// Is makes errors.Is(err, ErrUnanswered) true.
func (e *UnansweredError) Is(target error) bool { return target == ErrUnanswered }
