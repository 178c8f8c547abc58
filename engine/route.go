package engine

// The router: each recorded message to its session's actor.

import (
	"container/list"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/engine/session"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
)

// maxQueued bounds the recorded messages read ahead and not yet replayed,
// over all sessions, plus perActorQueued for each session: past it the
// router stops reading (memory stays bounded) until the sessions catch up.
const (
	maxQueued      = 4096
	perActorQueued = 64
)

// router is the route stage: it owns the read-ahead bound (the items the
// sessions hold) and when each session starts; it shares the registry of
// actors and the count of actors at the end of the tape with the engine.
type router struct {
	env      *session.Env // given to every actor
	sessions int          // Config.Sessions
	speed    scheduler.Speed
	actors   *registry
	ends     *ends
	live     *atomic.Int64 // sessions connected and replaying
	stale    func(*Item) bool
	sent     func(*Item) // a client message dropped as stale (for a controller)

	// lasts is each session's last seq, once scanned.
	lasts lastSeqs
	// runClock places each session's start at its recorded offset from
	// the tape's first message (speeds that pace by recorded time).
	runClock    scheduler.Clock
	runClockSet bool
	// startAt is Config.StartAt: no session starts before it, and the run
	// clock is anchored to it (zero: to the first session's start).
	startAt time.Time
	// firstTUS, when not nil, is the recorded time of the run's first
	// message, which a shard reads but may not replay (sharded.firstTUS):
	// the run clock is anchored to it, so that a shard's sessions keep
	// their offsets from the whole run's start.
	firstTUS func() (int64, bool)
	// queued counts the items read ahead and not yet replayed: in
	// mailboxes, backlogs, runs; the router waits on room past the limit.
	queued atomic.Int64
	room   chan struct{}
}

// route hands each recorded message to its session's actor, starting an
// actor (on g) for each session at its first client message. It never
// blocks on a target: a mailbox takes messages without waiting. It closes
// out once the input has ended and every actor has returned.
//
// Once the tape's last message of each session is known (lasts, from a
// scan of the tape beside the replay; nil: never), a session's mailbox is
// closed as soon as its last message is routed: its actor finishes and
// closes its connection while the rest of the tape goes on, so that the
// sessions alive at once, not all the tape's sessions, hold memory and
// connections.
func (r *router) route(ctx context.Context, g *errgroup.Group, in <-chan *Item, sk *sink, lasts <-chan lastSeqs) error {
	var wg sync.WaitGroup
	out := sk.out
	defer func() {
		wg.Wait() // actors send on out until they return
		close(out)
	}()
	defer r.actors.closeAll()
	done := ctx.Done()
	for {
		if err := r.waitRoom(ctx); err != nil {
			return err
		}
		// The loader reads ahead: an item is most often there already,
		// and a receive that does not wait (after a look at done, which
		// does not lock it) costs a fraction of the select below.
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		if lasts != nil {
			select {
			case l := <-lasts:
				lasts = nil
				r.setLasts(l)
			default:
			}
		}
		var it *Item
		ok, got := false, false
		select {
		case it, ok = <-in:
			got = true
		default:
		}
		if !got {
			select {
			case it, ok = <-in:
			case l := <-lasts:
				lasts = nil
				r.setLasts(l)
				continue
			case <-done:
				return ctx.Err()
			}
		}
		if !ok {
			return nil
		}
		if err := r.routeItem(ctx, g, &wg, it, sk); err != nil {
			return err
		}
	}
}

// setLasts takes each session's last seq, and closes the mailboxes of
// the sessions already past their end.
func (r *router) setLasts(l lastSeqs) {
	r.lasts = l
	for _, a := range r.actors.all() {
		r.closeIfLast(a)
	}
}

// lastSeqs is the seq of each recorded session's last message on the tape.
type lastSeqs map[string]int64

// scanLasts reads the tape once, beside the replay, for the last seq of
// each session. It gives up quietly on a tape it cannot read twice (a
// pipe): sessions then end with the tape.
func scanLasts(ctx context.Context, src tape.Source, opts []tape.Option, out chan<- lastSeqs) error {
	r, err := tape.OpenSource(src, opts...)
	if err != nil {
		return nil
	}
	return sendLasts(ctx, readLasts(ctx, r), out)
}

// lastsKnower is a target that knows each session's last seq on a tape
// it has read already (the built-in mock answering from the replayed
// tape): the scan asks it rather than reading the tape once more.
// LastSeqs returns when it knows them, or when ctx is done (not ok).
type lastsKnower interface {
	LastSeqs(ctx context.Context, src tape.Source) (map[string]int64, bool)
}

// keptLasts is a tape that knows each session's last seq without being
// read again (a tape.Shared that decoded a one-session import).
type keptLasts interface {
	LastSeqs() (map[string]int64, bool)
}

// findLasts is scanLasts, from the target or the tape when they know
// them.
func (e *Engine) findLasts(ctx context.Context, out chan<- lastSeqs) error {
	if k, ok := e.cfg.Dialer.(lastsKnower); ok {
		if l, ok := k.LastSeqs(ctx, e.cfg.Source); ok {
			return sendLasts(ctx, l, out)
		}
		if ctx.Err() != nil {
			return nil // the run has stopped: nothing to scan for
		}
	}
	if k, ok := e.cfg.Source.(keptLasts); ok {
		if l, ok := k.LastSeqs(); ok {
			return sendLasts(ctx, l, out)
		}
	}
	return scanLasts(ctx, e.cfg.Source, e.cfg.TapeOptions, out)
}

// readLasts reads r to its end, or its first bad line, for each
// session's last seq.
func readLasts(ctx context.Context, r *tape.Reader) lastSeqs {
	defer r.Close()
	last := make(lastSeqs)
	for ctx.Err() == nil {
		m, err := r.Next()
		if err != nil { // the end, or a bad line the loader reports
			break
		}
		last[m.Session] = m.Seq
	}
	return last
}

// sendLasts gives the router last, once.
func sendLasts(ctx context.Context, last lastSeqs, out chan<- lastSeqs) error {
	select {
	case out <- last:
	case <-ctx.Done():
	}
	return nil
}

// closeIfLast closes an actor's mailbox once its session's last message
// has been routed to it.
func (r *router) closeIfLast(a *member) {
	if r.lasts == nil || a.routed < 0 {
		return
	}
	last, ok := r.lasts[recordedSession(a.Name(), r.sessions)]
	if !ok || a.routed < last {
		return
	}
	a.Close() // the actor leaves the registry when it returns
}

// recordedSession is the recorded session a replayed one copies: "s1#3"
// is a virtual copy of "s1" when there are several.
func recordedSession(name string, sessions int) string {
	if sessions <= 1 {
		return name
	}
	if i := strings.LastIndexByte(name, '#'); i > 0 {
		return name[:i]
	}
	return name
}

// routeItem delivers one item.
func (r *router) routeItem(ctx context.Context, g *errgroup.Group, wg *sync.WaitGroup, it *Item, sk *sink) error {
	out := sk.out
	if r.stale(it) {
		r.sent(it)
		return nil
	}
	if it.End {
		all := r.actors.all()
		if !r.ends.begin(it.Epoch, len(all)) {
			return send(ctx, out, outcomes{one: &outcome{Epoch: it.Epoch, Req: it, End: true}})
		}
		for _, a := range all {
			r.post(a, it)
		}
		return nil
	}
	a := r.actors.get(it.Rec.Session)
	if a == nil {
		if it.Rec.Dir == tape.S2C {
			return send(ctx, out, outcomes{one: &outcome{Epoch: it.Epoch, Req: it, Skipped: "recorded server message before its session's first client message"}})
		}
		a = &member{Actor: session.New(r.env, sk, it.Rec.Session, r.sessionStart(it)), routed: -1}
		r.actors.add(a)
		wg.Add(1)
		g.Go(func() error {
			defer wg.Done()
			return a.Run(ctx)
		})
	}
	r.post(a, it)
	a.routed = it.Rec.Seq
	r.closeIfLast(a)
	return nil
}

// post puts an item in an actor's mailbox and counts it as queued.
func (r *router) post(a *member, it *Item) {
	if a.Put(it) {
		r.queued.Add(1)
	}
}

// sessionStart is when a session whose first message is it may connect.
// At a speed that paces by recorded time, a recorded session starts at
// its recorded offset from the tape's first message (÷ speed), so that
// sessions start as far apart as they were recorded (and --ramp spreads
// virtual copies); otherwise at once: the shared tickets pace. With a
// common start (Config.StartAt), nothing starts before it, and the run
// clock's first message is due at it, however late this replay began.
func (r *router) sessionStart(it *Item) time.Time {
	now := time.Now()
	if !r.startAt.IsZero() && (r.speed.ByTime() || r.startAt.After(now)) {
		now = r.startAt
	}
	if !r.speed.ByTime() {
		return now
	}
	if !r.runClockSet {
		first := it.Rec.TUS
		if r.firstTUS != nil {
			if t, ok := r.firstTUS(); ok {
				first = t
			}
		}
		r.runClock = scheduler.NewClock(r.speed, now).Rebased(now, time.Duration(first)*time.Microsecond, 0)
		r.runClockSet = true
	}
	return r.runClock.Due(time.Duration(it.Rec.TUS)*time.Microsecond, 0)
}

// release takes n items off the queued count (n < 0 adds them) and lets
// the router read on when there is room again: room for a run of items
// (roomSlack), not for one, so that a router held at the limit routes a
// run per wake-up rather than one item per item the sessions take.
func (r *router) release(n int) {
	if n <= 0 {
		if n < 0 {
			r.queued.Add(-int64(n))
		}
		return
	}
	limit := r.queueLimit()
	if left := r.queued.Add(-int64(n)); left < limit-roomSlack(limit) {
		select {
		case r.room <- struct{}{}:
		default:
		}
	}
}

// roomSlack is how far below the read-ahead limit the sessions must take
// the queued count before the router, held at the limit, is woken: an
// eighth of the limit, at most 256 items. Items that wait for more input
// to be released (a shuffled run, held-back messages: a few per session)
// are far fewer than the limit less the slack, so the router is always
// woken again.
func roomSlack(limit int64) int64 { return min(limit/8, 256) }

func (r *router) queueLimit() int64 {
	return maxQueued + perActorQueued*r.live.Load()
	// (actorsLive counts the sessions connected and replaying: those
	// waiting for their recorded start do not widen the read-ahead.)
}

// waitRoom blocks while the sessions hold as many items as they may.
func (r *router) waitRoom(ctx context.Context) error {
	for r.queued.Load() >= r.queueLimit() {
		select {
		case <-r.room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// member is a session's actor as the router knows it.
type member struct {
	*session.Actor
	// routed is the seq of the last item the router gave it (owned by
	// the router; -1 before the first).
	routed int64
}

// registry is the engine's actors by session name. The router adds to it;
// a controller's seek and inject read it from their own goroutines.
type registry struct {
	mu     sync.Mutex // guards byName, order and at
	byName map[string]*member
	order  list.List                        // of *member, in the order the sessions started
	at     map[*session.Actor]*list.Element // each actor's place in order
	// looked counts the members remove looked at, over the run: an
	// ended session's cost at many sessions, as a count (tests).
	looked int
}

func (r *registry) get(name string) *member {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byName[name]
}

func (r *registry) add(a *member) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byName == nil {
		r.byName = make(map[string]*member)
		r.at = make(map[*session.Actor]*list.Element)
	}
	r.byName[a.Name()] = a
	r.at[a.Actor] = r.order.PushBack(a)
}

// remove forgets an actor whose session has ended; a later message of
// the same session (none should come) would start a new one. It costs
// the same at any number of sessions: when thousands end at once (on
// Ctrl-C), forgetting them is not a search through all the others.
func (r *registry) remove(a *session.Actor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.byName[a.Name()]; m != nil && m.Actor == a {
		delete(r.byName, a.Name())
	}
	if el, ok := r.at[a]; ok {
		r.looked++
		r.order.Remove(el)
		delete(r.at, a)
	}
}

func (r *registry) all() []*member {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make([]*member, 0, r.order.Len())
	for el := r.order.Front(); el != nil; el = el.Next() {
		all = append(all, el.Value.(*member))
	}
	return all
}

// first is the actor of the session that started first, or nil.
func (r *registry) first() *member {
	r.mu.Lock()
	defer r.mu.Unlock()
	if el := r.order.Front(); el != nil {
		return el.Value.(*member)
	}
	return nil
}

// closeAll tells every actor that no more items will come.
func (r *registry) closeAll() {
	for _, a := range r.all() {
		a.Close()
	}
}
