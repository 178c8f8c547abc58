package session

import (
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// session is the state of one replayed session, owned by its actor (only
// the actor's goroutine touches it): its connection, its requests in
// flight (by the id sent and by the id recorded), what it is waiting for,
// and the recorded messages held back until then.
type session struct {
	name  string
	conn  transport.Conn // nil while it is being dialled; set by setConn
	sent  pends          // by the id sent
	byRec pends          // by the id recorded
	// What conn can do beyond transport.Conn, found once per connection
	// by setConn rather than by a type assertion per message: each such
	// assertion called runtime.getitab (a call site's own cache is
	// filled only about once in 1,000 calls), and the first assertion
	// for a type builds its itab, 20-30 µs that fell on the schedule's
	// first request (issue 24).
	async      transport.AsyncSender // conn, when it can take a request without holding its sender; else nil
	concurrent bool                  // conn's Send holds its caller until the target answers (holdsSender)
	instant    bool                  // conn's Send returns at once (transport.SendsInstantly)
	asks       bool                  // conn's target may send requests of its own (asks)
	via        via                   // conn, with the ways to send a request on it (viaOf)
	ownServer  bool                  // conn's server is its own (stdio): a reconnect reaches a new one (transport.OwnServer)
	// cancelsTasks: conn's server declared capabilities.tasks.cancel in
	// its answer to initialize (cancelTask).
	cancelsTasks bool
	// cancelledTasks: the live ids of the tasks replayctl cancelled
	// itself (cancelTask), each true when the task is a durable one of
	// the 2026 extension. A status notification of one is of replayctl's
	// doing, not the server's to be compared (ownCancel). They are the
	// old server's ids: a reconnect forgets them as it forgets taskIDs
	// (forgetOldServer).
	cancelledTasks map[string]bool

	inflight int   // requests sent and not answered
	waitFor  *pend // the order rule holds the session until this is answered
	// backlog keeps the session's recorded messages, in order, while it is
	// held; other sessions go on meanwhile.
	backlog []*Item
	// backlogMem is the array the backlog was last put in (by push's
	// append or pushFront), from its start: pop slices the backlog's head
	// off, removeAt shifts within it, and push moves a backlog that has
	// reached the end of its array back to the start.
	backlogMem    []*Item
	settled       bool // nothing more can be recorded for it: see actor.settle
	notesCompared bool // its notifications have been compared
	// notesWait: settled and quiet, the session waits (Env.Timeout at
	// most, askTimer) for a recorded notification the live server has
	// not sent yet (see notesIfQuiet).
	notesWait bool
	// notesSince is when that wait began; notesSaid, whether the session
	// has said what it waits for (notesSayAfter into the wait).
	notesSince time.Time
	notesSaid  bool

	// late holds the ids of requests given up on (timed out), so that an
	// answer that comes after all is counted once, not as a stray; and
	// those of the tasks/cancel sent for tasks given up (cancelTask),
	// whose answers are not judged.
	late map[string]bool

	// Chaos: the last request id sent (for duplicate-id), the requests sent
	// with an outbound fault, and whether the server died.
	prevID     []byte
	faulted    []*pend
	faultCount int
	lastFault  *chaos.Fault // the last outbound fault sent
	altered    *chaos.Fault // the last fault that altered what the server got (chaos.Kind.Alters)
	dead       bool
	handshake  []*Item // initialize and notifications/initialized, as sent first
	// states maps the requestStates of the recorded multi-round answers
	// to the live ones the server gave in their place (live.go).
	states map[string]string
	// taskIDs maps recorded task ids to the live ones (live.go).
	taskIDs map[string]string
	// sessionTasks: the recorded ids in taskIDs whose live task is of the
	// MCP session (2025-11-25), not a durable one of the 2026 extension:
	// forgotten at a reconnect (forgetOldServer).
	sessionTasks map[string]bool
	heldBack     []heldItem // reorder: messages held back behind later ones
	run          []*Item    // OrderRandom: client messages not yet shuffled

	// pacing is when its messages are due (clock.go).
	pacing pacing
	// gating is the message at the gate (a controller's, or stepped),
	// waiting for its answer (gate.go).
	gating *Item
	// blocked: the session waited for the target (order rule, in-flight
	// limit, connection); freeAt: when it last stopped waiting. A message
	// due before freeAt was held for that long.
	blocked bool
	freeAt  time.Time
	// answerAt is when the answer being taken was read (its
	// transport.Incoming.At), while the session drains after it: a
	// session that answer lets go on was free from then, not from when
	// it took it — the time between is the replayer's (lag), not the
	// target's (held).
	answerAt time.Time
	// sendFrom, sendTo: the last sends that waited for the target (a
	// POST held until its answer's headers), one after another while a
	// message waited through them: a message due in them was held by the
	// target for the part after its due time.
	sendFrom, sendTo time.Time

	// With ValidateNotifications: the server notifications recorded and
	// received, compared once the session is settled.
	recNotes  []*Item
	liveNotes []liveNote

	// Requests the live server sent, and the client's recorded answers to
	// requests the recorded server sent, matched by method in order.
	serverMethods map[string]string            // recorded server request id → method
	unreadAsks    map[string]string            // id → method ("" unknown) of recorded server requests not valid JSON-RPC
	answers       map[string][]*Item           // method → recorded client answers, in order
	asked         map[string][]jsonrpc.Message // method → live server requests not answered yet
	openAsks      map[string]int               // method → recorded server requests whose client answer is not read yet
	refused       map[string]int               // method → live server requests refused while the backlog had no ask of method, not yet matched to a recorded answer
	takenAhead    map[string]bool              // recorded server request ids whose client answer was taken before they were read
	warned        map[string]bool              // methods refused and warned about once
	asksHeld      map[string]int               // method → recorded server requests in the backlog (push, pop)
	// liveAsks are requests of the live server made while the session
	// was held, before the tape reader brought their recorded twin: they
	// wait for it, Env.AskWait each at most (receiver.ask).
	liveAsks []liveAsk
	// asksChecked: the session is held with live requests waiting
	// (liveAsks, asked), asked again against the backlog as it is but
	// for messages pushed since that cannot settle one (movesAsks): take
	// need not ask them again. Set by a drain after a push that took
	// nothing from the backlog, unset by every other drain (and false
	// while none waits, so that take looks no further).
	asksChecked bool
	// awaiting is the client's recorded answer to a server request that
	// the live server has not asked yet: the messages recorded after it
	// wait until the server asks (or --ask-wait, Env.AskWait, passes), as the recorded
	// client answered before it went on.
	awaiting *Item
}

func newSession(name string, conn transport.Conn) *session {
	s := &session{
		name:          name,
		sent:          newPends(),
		byRec:         newPends(),
		serverMethods: make(map[string]string),
		unreadAsks:    make(map[string]string),
		answers:       make(map[string][]*Item),
		asked:         make(map[string][]jsonrpc.Message),
		openAsks:      make(map[string]int),
		refused:       make(map[string]int),
		takenAhead:    make(map[string]bool),
	}
	s.setConn(conn)
	return s
}

// setConn makes c (nil: none yet) the session's connection.
func (s *session) setConn(c transport.Conn) {
	s.conn, s.async, s.concurrent, s.instant, s.asks, s.ownServer, s.via = c, nil, false, false, false, false, viaOf(c)
	if c == nil {
		return
	}
	s.async, _ = c.(transport.AsyncSender)
	s.concurrent = holdsSender(c)
	s.instant = transport.SendsInstantly(c)
	s.asks = asks(c)
	o, ok := c.(transport.OwnServer)
	s.ownServer = ok && o.OwnServer()
}

// forgetOldServer forgets, at a chaos reconnect, what the live values
// learned from the old connection's server that the new one does not
// have (live.go): the live ids of the old session's tasks (of every task
// when the old server was the connection's own, stdio's: the new one is
// another process), and so those of the tasks replayctl cancelled (a new
// server may give the id to a task of its own, whose status is then its
// to compare), and whether its server took tasks/cancel (the new
// server's answer to initialize says it again). It is called while the
// old connection is still the session's.
func (s *session) forgetOldServer() {
	if s.ownServer {
		clear(s.taskIDs)
		clear(s.cancelledTasks)
	}
	for rec := range s.sessionTasks {
		delete(s.taskIDs, rec)
	}
	clear(s.sessionTasks)
	for live, durable := range s.cancelledTasks {
		if !durable {
			delete(s.cancelledTasks, live)
		}
	}
	s.cancelsTasks = false
}

// ownCancel reports whether a notification the server sent is the
// status of a task replayctl cancelled itself (notifications/tasks/status,
// or the 2026 extension's notifications/tasks): the recorded client
// cancelled nothing, so it is not compared with the recorded ones.
func (s *session) ownCancel(rpc jsonrpc.Message) bool {
	if len(s.cancelledTasks) == 0 || (rpc.Method != mcp.NotificationTaskStatus && rpc.Method != mcp.NotificationTasks) {
		return false
	}
	id, ok := mcp.ParamTaskID(rpc.Params())
	_, own := s.cancelledTasks[id]
	return ok && own
}

// head is the session's next message, or nil.
func (s *session) head() *Item {
	if len(s.backlog) == 0 {
		return nil
	}
	return s.backlog[0]
}

// held reports whether the session's next recorded message must wait.
func (s *session) held(maxInflight int) bool {
	return s.conn == nil || s.inflight >= maxInflight || (s.waitFor != nil && !s.waitFor.answered()) || s.awaiting != nil
}

// holdReason says why the session is held (see held): "connection",
// "inflight", "handshake", "order" or "server_request"; "" when it is
// not. "handshake" is the wait for initialize's answer, which every
// order makes (a fresh handshake after a reconnect too): with --order
// none it is no wait of the order rule.
func (s *session) holdReason(maxInflight int) string {
	switch {
	case s.conn == nil:
		return "connection"
	case s.inflight >= maxInflight:
		return "inflight"
	case s.waitFor != nil && !s.waitFor.answered() && s.waitFor.req.RPC.Method == mcp.MethodInitialize:
		return "handshake"
	case s.waitFor != nil && !s.waitFor.answered():
		return "order"
	case s.awaiting != nil:
		return "server_request"
	}
	return ""
}

// refusedOver returns the request a recorded error with a null id
// answers, when it came over HTTP (it carries HTTP metadata): a server
// that refused a POST before reading its id (an HTTP 400 whose JSON-RPC
// error says "id":null) answered the request that POST carried, the
// session's latest request whose recorded answer has not come. nil for
// anything else: an error with a null id over stdio answers no request.
func (s *session) refusedOver(it *Item) *pend {
	if it.RPC.Kind != jsonrpc.KindError || string(it.RPC.ID) != "null" || it.Rec.HTTP == nil {
		return nil
	}
	var latest *pend
	for p := range s.byRec.all() {
		if latest == nil || p.req.Rec.Seq > latest.req.Rec.Seq {
			latest = p
		}
	}
	return latest
}

// takeAnswer returns the oldest recorded client answer to a server request
// of method, looking in the queue and then in the backlog: an answer to a
// recorded request read already, or to one further on in the backlog
// before the client's next notification (a live server that asks before
// the replay gets there; see asksAhead).
func (s *session) takeAnswer(method string) *Item {
	if q := s.answers[method]; len(q) > 0 {
		s.answers[method] = q[1:]
		return q[0]
	}
	var ahead map[string]bool // ids of the recorded requests of method in the backlog, before the client's next notification
	noted := false            // the look-ahead's end was passed (see endsLookAhead)
	for i, it := range s.backlog {
		noted = noted || endsLookAhead(it, method)
		if !noted && asksFor(it, method) {
			if ahead == nil {
				ahead = map[string]bool{}
			}
			ahead[jsonrpc.IDKey(it.RPC.ID)] = true
			continue
		}
		if !isAnswer(it.RPC.Kind) || it.Rec.Dir != tape.C2S {
			continue
		}
		id := jsonrpc.IDKey(it.RPC.ID)
		switch {
		case ahead[id]:
			s.takenAhead[id] = true // see receiver.recorded
		case s.serverMethods[id] == method:
			if s.openAsks[method] > 0 {
				s.openAsks[method]-- // read now: answered here, not by clientAnswer
			}
		default:
			continue
		}
		s.removeAt(i)
		return it
	}
	return nil
}

// movesAsks reports whether the recorded it, pushed behind the backlog
// of a held session, may change what becomes of the live server's
// requests waiting in it (receiver.ask, receiver.recheckAsks): a client
// answer that takeAnswer may take for one, a recorded request of the
// server that asksAhead counts for one waiting for the tape, or a client
// message that ends such a one's look-ahead (twinMayCome). Other
// messages (the client's requests and the server's answers, most of a
// backlog) change nothing for them.
func (s *session) movesAsks(it *Item) bool {
	if it.Rec.Dir == tape.C2S && isAnswer(it.RPC.Kind) {
		return len(s.asked) > 0 || len(s.liveAsks) > 0
	}
	for _, la := range s.liveAsks {
		if asksFor(it, la.rpc.Method) || endsLookAhead(it, la.rpc.Method) {
			return true
		}
	}
	return false
}

// asksLater reports whether the backlog holds a recorded request of the
// server of method, anywhere: counted as the backlog changes (see push),
// not looked for on every refusal.
func (s *session) asksLater(method string) bool { return s.asksHeld[method] > 0 }

// push queues it behind the backlog.
func (s *session) push(it *Item) {
	if n := len(s.backlog); n == cap(s.backlog) && n <= cap(s.backlogMem)/2 {
		// At the end of its memory, and the head is at least half of
		// it on: back to the start, where append allocated anew (a
		// backlog that fills and empties in runs did every few runs).
		mem := s.backlogMem[:cap(s.backlogMem)]
		copy(mem, s.backlog)
		clear(mem[n:]) // what stayed behind of the copy keeps no item alive
		s.backlog = mem[:n]
	}
	had := cap(s.backlog)
	s.backlog = append(s.backlog, it)
	if cap(s.backlog) != had { // a new array, the backlog at its start
		s.backlogMem = s.backlog[:0]
	}
	s.countAsk(it, 1)
}

// pushFront puts items before the backlog, in their order.
func (s *session) pushFront(items []*Item) {
	// A new array, the backlog at its start, so that backlogMem never
	// holds on to an array the backlog has left (nor to items' own).
	moved := make([]*Item, 0, len(items)+len(s.backlog))
	moved = append(append(moved, items...), s.backlog...)
	s.backlog, s.backlogMem = moved, moved[:0]
	for _, it := range items {
		s.countAsk(it, 1)
	}
}

// pop drops the backlog's head.
func (s *session) pop() {
	s.countAsk(s.backlog[0], -1)
	s.backlog[0] = nil
	s.backlog = s.backlog[1:]
}

// removeAt takes the backlog's message i out of it.
func (s *session) removeAt(i int) {
	s.countAsk(s.backlog[i], -1)
	// In place: the backlog stays in its array (backlogMem's), and the
	// slot freed at its end keeps no item alive.
	n := len(s.backlog)
	copy(s.backlog[i:], s.backlog[i+1:])
	s.backlog[n-1] = nil
	s.backlog = s.backlog[:n-1]
}

// countAsk adds d to the backlog's count of recorded server requests of
// it's method (asksHeld), when it is one.
func (s *session) countAsk(it *Item, d int) {
	if it.Rec.Dir != tape.S2C || it.RPC.Kind != jsonrpc.KindRequest {
		return
	}
	if s.asksHeld == nil {
		s.asksHeld = make(map[string]int)
	}
	s.asksHeld[it.RPC.Method] += d
}

// asksAhead counts the recorded requests of the server of method in the
// backlog before the look-ahead's end (endsLookAhead): the tape has the
// server asking them further on, and nothing the client sends before
// them can have made the server ask (a server asks roots/list on its
// own, on a timer, say, and a recording under load may have that ask
// past several requests of the client). One recorded past a
// notification of the client is another ask (the server asks roots/list
// again when told the roots changed): the live server's is not that one.
// A recorded ask whose client answer was taken already (takenAhead) is
// spent and not counted.
func (s *session) asksAhead(method string) int {
	n := 0
	var spent map[string]bool // takenAhead ids passed once already
	for _, it := range s.backlog {
		if endsLookAhead(it, method) {
			break
		}
		if !asksFor(it, method) {
			continue
		}
		if id := jsonrpc.IDKey(it.RPC.ID); s.takenAhead[id] && !spent[id] {
			if spent == nil {
				spent = map[string]bool{}
			}
			spent[id] = true // receiver.recorded takes this one as answered
			continue
		}
		n++
	}
	return n
}

// endsLookAhead reports whether the recorded it ends the look-ahead for
// a live ask of method: a notification of the client may have made the
// server ask (roots/list_changed, say), and a request of the client is
// what an ask made while the server handles a request belongs to
// (sampling and elicitation, asked within a tools/call), so such an ask
// is looked for only up to the client's next request.
func endsLookAhead(it *Item, method string) bool {
	if it.Rec.Dir != tape.C2S {
		return false
	}
	switch it.RPC.Kind {
	case jsonrpc.KindNotification:
		return true
	case jsonrpc.KindRequest:
		return askedWithinRequest(method)
	}
	return false
}

// askedWithinRequest reports whether a server asks method only while it
// handles a request of the client.
func askedWithinRequest(method string) bool {
	return method == "sampling/createMessage" || method == "elicitation/create"
}

func isAnswer(k jsonrpc.Kind) bool { return k == jsonrpc.KindResponse || k == jsonrpc.KindError }

// oldestFaulted is the oldest faulted request still waiting for an answer:
// an answer with a null id (a parse error, say) is taken as its.
func (s *session) oldestFaulted() *pend {
	for len(s.faulted) > 0 && s.faulted[0].answered() {
		s.faulted = s.faulted[1:]
	}
	if len(s.faulted) == 0 {
		return nil
	}
	return s.faulted[0]
}

// faultsSent reports whether an outbound fault was sent in the session.
func (s *session) faultsSent() bool { return s.faultCount > 0 }

// heldItem is a client message a reorder fault holds back until left more
// client messages of its session have gone.
type heldItem struct {
	it   *Item
	left int
}

// gaveUp remembers a request id the replay stopped waiting for.
func (s *session) gaveUp(key string) {
	if s.late == nil || len(s.late) > 10_000 { // bounded: forget the oldest lot
		s.late = make(map[string]bool)
	}
	s.late[key] = true
}

// asksFor reports whether it is a recorded server request of method.
func asksFor(it *Item, method string) bool {
	return it.Rec.Dir == tape.S2C && it.RPC.Kind == jsonrpc.KindRequest && it.RPC.Method == method
}
