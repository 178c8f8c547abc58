package tape

import (
	"fmt"
	"io"

	"github.com/replayctl/replayctl/jsonrpc"
)

// exportCall is one client message of a tape as the script and
// collection exporters (EncodeK6, EncodePostman) write it: the POST that
// carried it and what it was answered with.
type exportCall struct {
	Session string
	Req     Message
	// Method is the request's or notification's method; "" for a
	// response to the server or a batch.
	Method string
	// ID is the request's id as JSON text; "" when the message is not one
	// request.
	ID string
	// Want is what answered it: "result", "error", or "" when nothing
	// did (a notification, a response, an answer not recorded).
	Want string
	// Answer is the answer of a request (its result or error message),
	// when Want is not "".
	Answer Message
	// AnswerID is the id the answer carries, as JSON text: ID, or "null"
	// for an error the server could not tie to the request (a 400 to a
	// message it refused).
	AnswerID string
	// Status is the HTTP status recorded with the answer, or 0.
	Status int
}

// exportSession is a session of the tape as walkCalls gives it.
type exportSession struct {
	Name  string
	Index int   // from 0, in the order the sessions first sent
	Start int64 // the time of its first client message, µs
	Calls int   // how many client messages it sent
}

// walkCalls reads r from its start and calls each, session by session (in
// the order they first sent), with each client message of the session in
// order, after calling begin with the sessions. Messages the server sent
// outside any request (a GET stream) are not calls.
//
// It streams like EncodeHAR: the messages go to a spill file and are read
// back one exchange at a time; memory grows with the number of messages
// (a few dozen bytes each), not with their size. r is left at its end.
func walkCalls(r *Reader, begin func([]exportSession) error, each func(s exportSession, c exportCall) error) error {
	if err := r.Rewind(); err != nil {
		return err
	}
	store, g, err := spillAndGroup(r)
	if err != nil {
		return err
	}
	defer store.close()
	bySession := make([][]*exGroup, len(g.names))
	for _, ex := range g.exchanges() {
		if !ex.get {
			bySession[ex.session] = append(bySession[ex.session], ex)
		}
	}
	var sessions []exportSession
	for k, exs := range bySession {
		if len(exs) == 0 {
			continue
		}
		sessions = append(sessions, exportSession{Name: g.names[k], Index: len(sessions), Start: exs[0].start, Calls: len(exs)})
	}
	if err := begin(sessions); err != nil {
		return err
	}
	for _, s := range sessions {
		for _, ex := range bySession[g.index[s.Name]] {
			full, err := g.load(ex, store)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			if err := each(s, full.call()); err != nil {
				return err
			}
		}
	}
	return nil
}

// call is the exchange ex as a call.
func (ex *harExport) call() exportCall {
	c := exportCall{Session: ex.session, Req: ex.req}
	if ex.req.HTTP != nil {
		c.Status = ex.req.HTTP.Status
	}
	m, err := jsonrpc.Parse(ex.req.Msg)
	if err != nil {
		return c
	}
	c.Method = m.Method
	if m.Kind != jsonrpc.KindRequest {
		return c
	}
	c.ID = jsonrpc.IDKey(m.ID)
	for _, a := range ex.answers {
		am, err := jsonrpc.Parse(a.Msg)
		if err != nil || !jsonrpc.IsResponseKind(am.Kind) {
			continue
		}
		id := jsonrpc.IDKey(am.ID)
		if id != c.ID && (am.Kind != jsonrpc.KindError || (id != "null" && id != "")) {
			continue
		}
		if id == "" {
			id = "null"
		}
		c.Want, c.Answer, c.AnswerID = "result", a, id
		if am.Kind == jsonrpc.KindError {
			c.Want = "error"
		}
		if a.HTTP != nil && a.HTTP.Status != 0 {
			c.Status = a.HTTP.Status
		}
		break
	}
	return c
}

// spillAndGroup reads r from where it is to its end into a spill store
// (close it) and groups its messages into exchanges: the one pass every
// export makes before it writes.
func spillAndGroup(r *Reader) (*spillStore, *grouper, error) {
	store, err := newSpillStore(r.Path())
	if err != nil {
		return nil, nil, err
	}
	g := &grouper{}
	for {
		m, err := r.Next()
		if err == io.EOF {
			return store, g, nil
		}
		if err == nil {
			err = store.add(m)
			if err != nil {
				err = fmt.Errorf("export seq %d: %w", m.Seq, err)
			}
		}
		if err != nil {
			store.close()
			return nil, nil, err
		}
		g.add(m)
	}
}
