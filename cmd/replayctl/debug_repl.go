package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/internal/editdist"
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
		{"print", "p", "[seq|answer|recorded]", "the current message (or seq), or the last answer as it came (answer) or as recorded, as pretty JSON", (*debugger).print},
		{"diff", "", "", "expected → actual, whole values, for each difference of the last answer", (*debugger).diff},
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
	if meant := commandMeant(word); meant != "" {
		return nil, "", fmt.Errorf("unknown command %q; did you mean %q? (type help for the list)", word, meant)
	}
	return nil, "", fmt.Errorf("unknown command %q; type help for the list", word)
}

// otherDebuggers are the words other debuggers (gdb, dlv, pdb) use for
// what a command here does.
var otherDebuggers = map[string]string{
	"next": "step", "n": "step", "stepi": "step",
	"run": "continue", "r": "continue", "cont": "continue", "go": "continue",
	"stop": "pause", "exit": "quit", "info": "status", "where": "status",
	"goto": "seek", "jump": "seek", "breakpoint": "break", "clear": "delete",
}

// commandMeant is the command a word that is none most likely meant: a
// typo of one ("stp") or another debugger's word for it ("next"), or "".
func commandMeant(word string) string {
	if c, ok := otherDebuggers[word]; ok {
		return c
	}
	names := make([]string, 0, len(replCmds))
	for _, c := range replCmds {
		names = append(names, c.name)
	}
	return editdist.Closest(word, names)
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
	d.showJudged() // late ones (an interrupted step's answer); step shows its own
	rs, err := d.c.Step(ctx, n)
	for _, r := range rs {
		d.show(r)
	}
	if errors.Is(err, controller.ErrInterrupted) {
		d.printf("interrupted; an answer still awaited is shown when it has come, by the next step or continue\n")
		st, err := d.c.Status(ctx)
		if err != nil {
			return err
		}
		d.where(st)
		return nil
	}
	if err != nil {
		return err
	}
	return d.settle(ctx, rs)
}

// cont resumes the replay and prints each result as it is judged, so a
// paced replay is seen as it goes, until the replay stops; then what was
// judged late and where it stopped.
func (d *debugger) cont(ctx context.Context, _ string) error {
	d.showJudged() // late ones (an interrupted step's answer)
	if err := d.c.Resume(ctx); err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() {
		_, err := d.c.WaitStop(wctx)
		stopped <- err
	}()
	defer func() {
		cancel()
		<-stopped // drained or already received: the goroutine has ended
	}()
	for {
		select {
		case <-d.j.added:
			d.showJudged()
		case err := <-stopped:
			stopped <- err // for the deferred drain
			if err != nil {
				return err
			}
			d.showJudged()
			return d.settle(ctx, nil)
		}
	}
}

// showJudged prints the results judged since the last take (not those of
// injected messages: inject shows its own).
func (d *debugger) showJudged() {
	for _, r := range d.j.take() {
		if r.Seq >= 0 {
			d.show(r)
		}
	}
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
	// What was in flight is of the old epoch now: never judged, never
	// shown; what was judged before is let go.
	st, err := d.c.Status(ctx)
	if err != nil {
		return err
	}
	if err := d.j.catchUp(ctx, st.Judged, d.timeout+time.Second); err != nil {
		return err
	}
	d.j.take()
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
		d.printf("%s\n", msgLine(m, s == cur, d.cols()))
	}
	return nil
}

func (d *debugger) print(ctx context.Context, arg string) error {
	if arg == "answer" || arg == "recorded" {
		return d.printAnswer(arg)
	}
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
	d.printf("seq %d  %s  session %s  %s\n", m.Seq, m.Dir, m.Session, m.Kind)
	if m.HTTP != nil {
		d.printWrapped(httpLine(m.HTTP))
	}
	d.printWrapped(pretty(m.Raw))
	return nil
}

// printAnswer prints the whole answer to the last request judged: as it
// came from the target (which "answer"), or as recorded ("recorded").
func (d *debugger) printAnswer(which string) error {
	r := d.last
	if r == nil {
		return fmt.Errorf("print %s: no answer judged yet; step first", which)
	}
	b := r.Answer
	if which == "recorded" {
		b = r.Recorded
	}
	if b == nil {
		return fmt.Errorf("print %s: seq %d %s has none (%s)", which, r.Seq, r.Method, r.Verdict)
	}
	d.printf("%s to seq %d %s  %s\n", which, r.Seq, r.Method, r.Verdict)
	d.printWrapped(pretty(b))
	return nil
}

func (d *debugger) diff(context.Context, string) error {
	r := d.last
	if r == nil {
		return errors.New("diff: no answer judged yet; step first")
	}
	d.printf("seq %d %s: %s\n", r.Seq, r.Method, r.Verdict)
	if len(r.Differences) == 0 && r.Err != "" {
		d.printWrapped("  " + r.Err)
	}
	for _, df := range r.Differences {
		d.printWrapped("  " + diffFull(df))
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
	// The stream hands verdicts over a little after the controller
	// counts them: the count checked waits for them.
	if err := d.j.catchUp(ctx, st.Judged, d.timeout+time.Second); err != nil {
		return err
	}
	next := st.Seq
	if m, ok := d.current(st); ok {
		next = m.Seq
	}
	d.printf("%s\n", statusLine(st, next, d.j.checkedSoFar()))
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
		d.printWrapped(fmt.Sprintf("  %-32s %s", name, c.help))
	}
	return nil
}
