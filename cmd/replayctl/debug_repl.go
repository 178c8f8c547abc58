package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// replCmd is one command of the debugger.
type replCmd struct {
	name, alias, args, help string
	run                     func(d *debugger, ctx context.Context, arg string) error
}

// errQuit ends the session from a command.
var errQuit = errors.New("quit")

// replCmds are the debugger's commands, in the order help lists them.
var replCmds []replCmd

func init() { // a var initialiser would be an initialisation cycle through help
	replCmds = []replCmd{
		{"step", "s", "[n]", "send the next n client messages (1), one at a time, each judged", (*debugger).step},
		{"continue", "c", "", "run until a breakpoint, a failed answer or the end of the tape", (*debugger).cont},
		{"pause", "", "", "stop sending (for a replay that runs)", (*debugger).pause},
		{"seek", "", "<seq|method|expr>", "go to seq, or to the next client message that matches", (*debugger).seek},
		{"break", "b", "<seq|method|expr>", `stop before a message: 12, tools/call, params.name == "echo"`, (*debugger).addBreak},
		{"delete", "d", "<id>", "remove a breakpoint", (*debugger).deleteBreak},
		{"breakpoints", "bl", "", "list the breakpoints", (*debugger).listBreaks},
		{"list", "l", "[n]", "the messages around the current one (n each side, 3)", (*debugger).list},
		{"print", "p", "[seq]", "the current message (or seq), as pretty JSON", (*debugger).print},
		{"diff", "", "", "expected → actual, for each difference of the last answer", (*debugger).diff},
		{"speed", "", "<s>", "pacing for continue: fast, realtime, 10x, fixed:50ms, rps:5", (*debugger).speed},
		{"status", "", "", "where the replay stands", (*debugger).status},
		{"inject", "", "<json>", "send a message that is not on the tape, now", (*debugger).inject},
		{"modify", "", "<json>", "send this instead of the next message, once", (*debugger).modify},
		{"help", "h", "", "this list", (*debugger).help},
		{"quit", "q", "", "end the session (end of input does too)", func(*debugger, context.Context, string) error { return errQuit }},
	}
}

// parseCommand splits a line into its command and argument. An empty
// line gives a nil command and no error.
func parseCommand(line string) (*replCmd, string, error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil, "", nil
	}
	word, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	for i := range replCmds {
		if c := &replCmds[i]; word == c.name || (c.alias != "" && word == c.alias) {
			return c, arg, nil
		}
	}
	return nil, "", fmt.Errorf("unknown command %q; type help for the list", word)
}

// journal keeps the results the engine reports, for the commands that
// show what a replay did (continue, inject).
type journal struct {
	mu      sync.Mutex // guards results: the validate stage adds, the REPL takes
	results []report.Result
	added   chan struct{} // signalled (never blocks) when a result is added
}

func newJournal() *journal { return &journal{added: make(chan struct{}, 1)} }

// add is the engine's OnResult: it must not block.
func (j *journal) add(r report.Result) {
	j.mu.Lock()
	j.results = append(j.results, r)
	j.mu.Unlock()
	select {
	case j.added <- struct{}{}:
	default:
	}
}

// take returns the results added since the last take.
func (j *journal) take() []report.Result {
	j.mu.Lock()
	defer j.mu.Unlock()
	rs := j.results
	j.results = nil
	return rs
}

// debugger is one `replayctl debug` session: the REPL's side of it.
type debugger struct {
	c              *controller.Controller
	look           func(seq int64) (controller.Msg, bool)
	tap            *tap
	j              *journal
	out            io.Writer
	p              painter
	timeout        time.Duration // the answer timeout: bounds the waits for results
	last           *report.Result
	defaultSession string // the first session: inject's
	// unjudged is how many released messages will never be judged (they
	// were in flight when a seek dropped them), for settle.
	unjudged int64
}

func (d *debugger) printf(format string, a ...any) { fmt.Fprintf(d.out, format, a...) }

// show prints a result: what was sent, what came back and the verdict;
// on a failure the recorded answer too.
func (d *debugger) show(r report.Result) {
	if r.Dir != report.DirC2S {
		return
	}
	ex, ok := d.tap.take(r.Session, r.Method)
	sent := ex.sent
	if !ok {
		if m, found := d.look(r.Seq); found {
			sent = m.Raw
		}
	}
	d.printf("%s\n", d.p.dim(sentLine(r.Seq, r.Method, sent)))
	if ex.answer != nil {
		d.printf("%s\n", answerLine("← ", ex.answer))
	}
	d.printf("%s\n", verdictLine(d.p, r))
	if r.Verdict == report.Failed && r.Seq >= 0 {
		if rec, ok := d.recordedAnswer(r.Seq); ok {
			d.printf("%s\n", d.p.dim(answerLine("recorded ← ", rec)))
		}
	}
	if r.Kind == report.KindRequest {
		rr := r
		d.last = &rr
	}
}

// recordedAnswer finds the tape's answer to the request at seq.
func (d *debugger) recordedAnswer(seq int64) ([]byte, bool) {
	req, ok := d.look(seq)
	if !ok || req.ID == "" {
		return nil, false
	}
	for s := seq + 1; s < seq+10000; s++ {
		m, ok := d.look(s)
		if !ok {
			return nil, false
		}
		if m.Dir == report.DirS2C && m.Session == req.Session && m.ID == req.ID && (m.Kind == report.KindResponse || m.Kind == report.KindError) {
			return m.Raw, true
		}
	}
	return nil, false
}

// current is the next client message at or after the status's seq.
func (d *debugger) current(st controller.Status) (controller.Msg, bool) {
	for s := st.Seq; s < st.Seq+10000; s++ {
		m, ok := d.look(s)
		if !ok {
			return controller.Msg{}, false
		}
		if m.Dir == report.DirC2S {
			return m, true
		}
	}
	return controller.Msg{}, false
}

// settle waits until every released message that can still be judged has
// been (a breakpoint can stop the replay while the answer to the message
// before it is on its way), then prints what was judged since the last
// command, and where the replay stopped.
func (d *debugger) settle(ctx context.Context, shown []report.Result) error {
	st, err := d.waitJudged(ctx)
	if err != nil {
		return err
	}
	for _, r := range d.j.take() {
		if r.Seq < 0 || slices.ContainsFunc(shown, func(s report.Result) bool { return s.Seq == r.Seq && s.Session == r.Session }) {
			continue
		}
		d.show(r)
	}
	d.where(st)
	return nil
}

// waitJudged waits, a timeout at most, for released == judged (less the
// ones a seek dropped) and returns the status then.
func (d *debugger) waitJudged(ctx context.Context) (controller.Status, error) {
	updates, unsubscribe := d.c.Subscribe(16)
	defer unsubscribe()
	st, err := d.c.Status(ctx)
	if err != nil {
		return st, err
	}
	deadline := time.NewTimer(d.timeout + time.Second)
	defer deadline.Stop()
	for st.Judged+d.unjudged < st.Released && st.State != controller.Running {
		select {
		case u, ok := <-updates:
			if !ok {
				return st, controller.ErrStopped
			}
			st = u
		case <-deadline.C:
			return st, nil
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
	return st, nil
}

// where prints why the replay stopped and what comes next.
func (d *debugger) where(st controller.Status) {
	switch {
	case st.State == controller.Ended:
		d.printf("■ end of the tape (seek to replay more)\n")
		return
	case st.State == controller.Running:
		d.printf("▶ running\n")
		return
	case st.Reason == "pause", strings.HasPrefix(st.Reason, "breakpoint"), strings.HasPrefix(st.Reason, "error"):
		d.printf("%s\n", d.p.bold("⏸ "+st.Reason))
	}
	if m, ok := d.current(st); ok {
		d.printf("next: %s\n", strings.TrimSpace(msgLine(m, false)))
	} else {
		d.printf("next: seq %d\n", st.Seq)
	}
}

func (d *debugger) step(ctx context.Context, arg string) error {
	n := 1
	if arg != "" {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 {
			return fmt.Errorf("step %q: want a count of 1 or more", arg)
		}
		n = v
	}
	d.j.take() // step shows its own results
	rs, err := d.c.Step(ctx, n)
	for _, r := range rs {
		d.show(r)
	}
	if err != nil {
		return err
	}
	return d.settle(ctx, rs)
}

func (d *debugger) cont(ctx context.Context, _ string) error {
	d.j.take()
	if err := d.c.Resume(ctx); err != nil {
		return err
	}
	if _, err := d.c.WaitStop(ctx); err != nil {
		return err
	}
	return d.settle(ctx, nil)
}

func (d *debugger) pause(ctx context.Context, _ string) error {
	if err := d.c.Pause(ctx); err != nil {
		return err
	}
	return d.settle(ctx, nil)
}

func (d *debugger) seek(ctx context.Context, arg string) error {
	if arg == "" {
		return errors.New("seek: want a seq, a method or an expression")
	}
	var err error
	if seq, perr := strconv.ParseInt(arg, 10, 64); perr == nil {
		err = d.c.Seek(ctx, seq)
	} else {
		_, err = d.c.SeekMatch(ctx, arg)
	}
	if err != nil {
		return err
	}
	// What was in flight is of the old epoch now: never judged, never shown.
	d.tap.reset()
	d.j.take()
	st, err := d.c.Status(ctx)
	if err != nil {
		return err
	}
	d.unjudged = st.Released - st.Judged
	d.where(st)
	return nil
}

func (d *debugger) addBreak(ctx context.Context, arg string) error {
	if arg == "" {
		return errors.New("break: want a seq, a method or an expression")
	}
	bp, err := d.c.AddBreakpoint(ctx, arg)
	if err != nil {
		return err
	}
	d.printf("breakpoint %d: %s %s\n", bp.ID, bp.Kind, bp.Spec)
	return nil
}

func (d *debugger) deleteBreak(ctx context.Context, arg string) error {
	id, err := strconv.Atoi(arg)
	if err != nil {
		return fmt.Errorf("delete %q: want a breakpoint id (see breakpoints)", arg)
	}
	if err := d.c.RemoveBreakpoint(ctx, id); err != nil {
		return fmt.Errorf("delete %d: %w", id, err)
	}
	d.printf("deleted breakpoint %d\n", id)
	return nil
}

func (d *debugger) listBreaks(ctx context.Context, _ string) error {
	bps, err := d.c.Breakpoints(ctx)
	if err != nil {
		return err
	}
	if len(bps) == 0 {
		d.printf("no breakpoints\n")
	}
	for _, b := range bps {
		d.printf("%d  %-6s %s  hits %d", b.ID, b.Kind, b.Spec, b.Hits)
		if b.Err != "" {
			d.printf("  (error: %s)", b.Err)
		}
		d.printf("\n")
	}
	return nil
}

func (d *debugger) list(ctx context.Context, arg string) error {
	around := int64(3)
	if arg != "" {
		v, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || v < 0 {
			return fmt.Errorf("list %q: want a count of messages each side", arg)
		}
		around = v
	}
	st, err := d.c.Status(ctx)
	if err != nil {
		return err
	}
	cur := st.Seq
	if m, ok := d.current(st); ok {
		cur = m.Seq
	}
	for s := max(cur-around, 0); s <= cur+around; s++ {
		m, ok := d.look(s)
		if !ok {
			break
		}
		d.printf("%s\n", msgLine(m, s == cur))
	}
	return nil
}

func (d *debugger) print(ctx context.Context, arg string) error {
	var m controller.Msg
	var ok bool
	if arg != "" {
		seq, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return fmt.Errorf("print %q: want a seq", arg)
		}
		if m, ok = d.look(seq); !ok {
			return fmt.Errorf("print %d: the tape has no message with that seq", seq)
		}
	} else {
		st, err := d.c.Status(ctx)
		if err != nil {
			return err
		}
		if m, ok = d.current(st); !ok {
			return errors.New("print: no message comes next (end of the tape)")
		}
	}
	d.printf("seq %d  %s  session %s  %s\n%s\n", m.Seq, m.Dir, m.Session, m.Kind, pretty(m.Raw))
	return nil
}

func (d *debugger) diff(context.Context, string) error {
	r := d.last
	if r == nil {
		return errors.New("diff: no answer judged yet; step first")
	}
	d.printf("seq %d %s: %s\n", r.Seq, r.Method, r.Verdict)
	if len(r.Differences) == 0 && r.Err != "" {
		d.printf("  %s\n", r.Err)
	}
	for _, df := range r.Differences {
		d.printf("  %s\n", diffLine(df))
	}
	return nil
}

func (d *debugger) speed(ctx context.Context, arg string) error {
	s, err := scheduler.Parse(arg)
	if err != nil {
		return fmt.Errorf("speed: %w", err)
	}
	if err := d.c.SetSpeed(ctx, s); err != nil {
		return err
	}
	d.printf("speed %s\n", s)
	return nil
}

func (d *debugger) status(ctx context.Context, _ string) error {
	st, err := d.c.Status(ctx)
	if err != nil {
		return err
	}
	next := st.Seq
	if m, ok := d.current(st); ok {
		next = m.Seq
	}
	d.printf("%s\n", statusLine(st, next))
	if st.Note != "" {
		d.printf("note: %s\n", st.Note)
	}
	return nil
}

func (d *debugger) inject(ctx context.Context, arg string) error {
	if arg == "" {
		return errors.New(`inject: want a JSON-RPC message, e.g. {"jsonrpc":"2.0","id":"x1","method":"ping"}`)
	}
	d.j.take()
	if err := d.c.Inject(ctx, d.defaultSession, []byte(arg)); err != nil {
		return err
	}
	// Its answer is reported with seq -1; a notification has none.
	deadline := time.NewTimer(d.timeout + time.Second)
	defer deadline.Stop()
	for {
		for _, r := range d.j.take() {
			if r.Seq < 0 {
				d.show(r)
				return nil
			}
		}
		select {
		case <-d.j.added:
		case <-deadline.C:
			d.printf("sent; no result came in %s\n", d.timeout)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (d *debugger) modify(ctx context.Context, arg string) error {
	if arg == "" {
		return errors.New("modify: want the JSON-RPC message to send instead of the next one")
	}
	if err := d.c.ModifyNext(ctx, []byte(arg)); err != nil {
		return err
	}
	d.printf("the next message goes out as given (once)\n")
	return nil
}

func (d *debugger) help(context.Context, string) error {
	for _, c := range replCmds {
		name := c.name
		if c.alias != "" {
			name += " (" + c.alias + ")"
		}
		if c.args != "" {
			name += " " + c.args
		}
		d.printf("  %-32s %s\n", name, c.help)
	}
	return nil
}
