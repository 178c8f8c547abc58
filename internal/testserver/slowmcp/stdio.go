package slowmcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Serve is the stdio server: it reads newline-delimited JSON-RPC messages
// from r (lines of any length) and writes each answer to w as one line,
// in one Write. Requests other than tools/call are answered at once, in
// order; with a delay, each tools/call is answered by its own goroutine
// after the delay, so concurrent calls are answered concurrently.
//
// Serve returns nil when r ends, once the answers still delayed are
// written (a goroutine still sleeping when ctx is done writes nothing),
// or the first error reading r or writing w. With HangEndless it returns
// once it has written an endless tools/call answer (its write error);
// with HangSilent it never answers tools/call. With
// HangNoRead it answers
// initialize, writes FloodRequests requests, never reads r again and
// returns ctx.Err() when ctx is done. Serve cannot interrupt a blocked
// Read or Write: cancel ctx and close r and w to stop it.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts ...Option) error {
	c := newConfig(opts)
	in := bufio.NewReaderSize(r, 64<<10)
	out := &lineWriter{w: w}
	var delayed sync.WaitGroup
	defer delayed.Wait()
	// A call held by the gate is dropped once the input ends: its client
	// has gone.
	reading, endReading := context.WithCancel(ctx)
	defer endReading()
	asked := 0
	var due cancels // with WithCancel: the delayed answers still due
	for {
		line, rerr := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			m := Parse(line)
			c.arrivals.record(time.Now(), time.Time{}, m)
			answer := Answer(m)
			switch d := c.delayFor(m); {
			case c.hang == HangEndless && Delayed(m):
				return out.endless(endlessStart(m.ID))
			case c.hang == HangSilent && Delayed(m): // never answered
			case c.sized(m):
				out.sized(m.ID, c.answerSize)
			case answer == nil:
			case d > 0 || c.held(m):
				actx, e := ctx, (*dueAnswer)(nil)
				if c.cancel {
					actx, e = due.add(ctx, m.ID)
				}
				delayed.Go(func() {
					defer due.release(e)
					if c.pass(reading, m) && sleep(actx, d) && (e == nil || due.take(e)) {
						out.write(answer)
					}
				})
			default:
				out.write(answer)
			}
			if c.cancel && m.Kind == Notification && m.Method == "notifications/cancelled" {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if json.Unmarshal(m.Params, &p) == nil {
					due.cancel(p.RequestID)
				}
			}
			if c.askMethod != "" && m.Kind == Notification && m.Method == "notifications/initialized" {
				asked++
				ask := askRequest(asked, c.askMethod)
				delayed.Go(func() {
					if sleep(ctx, c.askAfter) {
						out.write(ask)
					}
				})
			}
			if c.hang == HangNoRead && m.Kind == Request && m.Method == "initialize" {
				flood(out)
				if err := out.error(); err != nil {
					return err
				}
				<-ctx.Done()
				return ctx.Err()
			}
		}
		if err := out.error(); err != nil {
			return err
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("read: %w", rerr)
		}
	}
}

// cancels are the delayed answers a client may still cancel (WithCancel),
// by the text of their request's id. One id may have several answers
// due (a client that reuses an id in flight): each is its own entry.
type cancels struct {
	mu sync.Mutex // guards m
	m  map[string][]*dueAnswer
}

// dueAnswer is one delayed answer's entry in cancels.
type dueAnswer struct {
	id   string
	stop context.CancelFunc
}

// add makes the context of an answer to id, cancelled by cancel(id),
// and its entry, which take or release removes.
func (cs *cancels) add(ctx context.Context, id json.RawMessage) (context.Context, *dueAnswer) {
	actx, stop := context.WithCancel(ctx)
	e := &dueAnswer{id: string(id), stop: stop}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[string][]*dueAnswer{}
	}
	cs.m[e.id] = append(cs.m[e.id], e)
	return actx, e
}

// cancel cancels every answer to id still due.
func (cs *cancels) cancel(id json.RawMessage) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, e := range cs.m[string(id)] {
		e.stop()
	}
	delete(cs.m, string(id))
}

// take reports whether e is still due (not cancelled), and makes it no
// longer cancellable.
func (cs *cancels) take(e *dueAnswer) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	es := cs.m[e.id]
	i := slices.Index(es, e)
	if i < 0 {
		return false
	}
	if len(es) == 1 {
		delete(cs.m, e.id)
	} else {
		cs.m[e.id] = slices.Delete(es, i, i+1)
	}
	return true
}

// release removes e, taken or not, and ends its context; nil: nothing.
func (cs *cancels) release(e *dueAnswer) {
	if e == nil {
		return
	}
	cs.take(e)
	e.stop()
}

// len is the number of answers still due.
func (cs *cancels) len() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := 0
	for _, es := range cs.m {
		n += len(es)
	}
	return n
}

// askRequest is the server's nth request of method (WithAsk).
func askRequest(n int, method string) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":"ask-`), strconv.Itoa(n)...)
	b = append(b, `","method":`...)
	return append(appendString(b, method), '}')
}

// flood writes FloodRequests sampling/createMessage requests of about
// 1 KB each.
func flood(out *lineWriter) {
	pad := bytes.Repeat([]byte("x"), 900)
	var b []byte
	for i := 1; i <= FloodRequests; i++ {
		b = append(b[:0], `{"jsonrpc":"2.0","id":"srv-`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"`...)
		b = append(b, pad...)
		b = append(b, `"}}],"maxTokens":16}}`...)
		out.write(b)
	}
}

// lineWriter writes whole lines to w, one Write each, from any goroutine.
type lineWriter struct {
	mu  sync.Mutex // guards w, buf and err
	w   io.Writer
	buf []byte
	err error // the first write error; later lines are dropped
}

func (l *lineWriter) write(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	l.buf = append(append(l.buf[:0], line...), '\n')
	if _, err := l.w.Write(l.buf); err != nil {
		l.err = fmt.Errorf("write: %w", err)
	}
}

// endless writes start and then text without end (EndlessBytes), never
// the newline; it returns the write error that stopped it, or nil.
func (l *lineWriter) endless(start []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if err := writeEndless(l.w, start, nil); err != nil {
		l.err = fmt.Errorf("write: %w", err)
	}
	return l.err
}

// sized writes the answer to id of a text of n bytes, one line in
// pieces (see writeSized).
func (l *lineWriter) sized(id json.RawMessage, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if err := writeSized(l.w, id, n, "\n"); err != nil {
		l.err = fmt.Errorf("write: %w", err)
	}
}

func (l *lineWriter) error() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
