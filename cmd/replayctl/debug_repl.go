package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/debug"
	"github.com/replayctl/replayctl/report"
)

// debugger is the REPL's side of a `replayctl debug` session: it runs the
// commands debug.Parse reads on the session and prints what they give.
type debugger struct {
	s     *debug.Session
	out   io.Writer
	p     painter
	width func() int // the output's width now, in columns
}

// errQuit ends the session from a command.
var errQuit = errors.New("quit")

func (d *debugger) printf(format string, a ...any) { fmt.Fprintf(d.out, format, a...) }

// cols is the width lines are fitted to: the terminal's, read again for
// each use (it can be resized), or defaultWidth.
func (d *debugger) cols() int {
	w := defaultWidth
	if d.width != nil {
		w = d.width()
	}
	return max(w, minWidth)
}

// printWrapped prints s with each line wrapped to the width.
func (d *debugger) printWrapped(s string) { d.printf("%s\n", wrap(s, d.cols())) }

// show prints a result (the session's OnShow hook): what was sent, what
// came back and the verdict; on a failure the recorded answer too.
func (d *debugger) show(r report.Result) {
	sent := r.Out
	if sent == nil {
		if m, found := d.s.Message(r.Seq); found {
			sent = m.Raw
		}
	}
	d.printf("%s\n", d.p.dim(sentLine(r.Seq, r.Method, sent, d.cols())))
	if r.Answer != nil {
		d.printf("%s\n", answerLine("← ", r.Answer, d.cols()))
	}
	d.printf("%s\n", verdictLine(d.p, r, d.cols()))
	if r.Verdict == report.Failed && r.Recorded != nil {
		d.printf("%s\n", d.p.dim(answerLine("recorded ← ", r.Recorded, d.cols())))
	}
}

// where prints why the replay stopped and what comes next.
func (d *debugger) where(p debug.Place) {
	st := p.Status
	switch {
	case st.State == controller.Ended:
		d.printf("■ end of the tape (seek to replay more)\n")
		return
	case st.State == controller.Running:
		d.printf("▶ running\n")
		return
	case p.Stopped():
		d.printf("%s\n", d.p.bold("⏸ "+st.Reason))
	}
	if p.HasNext {
		d.printf("next: seq %s\n", strings.TrimSpace(msgLine(p.Next, false, d.cols())))
	} else {
		d.printf("next: seq %d\n", st.Seq)
	}
}

// moved prints where a move (step, continue, pause, seek) left the replay.
func (d *debugger) moved(p debug.Place, err error) error {
	if err != nil {
		return err
	}
	d.where(p)
	return nil
}

// run runs one command and prints what it gives.
func (d *debugger) run(ctx context.Context, c debug.Command) error {
	switch c := c.(type) {
	case debug.Step:
		p, err := d.s.Step(ctx, c.N)
		if errors.Is(err, controller.ErrInterrupted) {
			d.printf("interrupted; an answer still awaited is shown when it has come, by the next step or continue\n")
			d.where(p)
			return nil
		}
		return d.moved(p, err)
	case debug.Continue:
		return d.moved(d.s.Continue(ctx))
	case debug.Pause:
		return d.moved(d.s.Pause(ctx))
	case debug.Seek:
		if c.Match != "" {
			return d.moved(d.s.SeekMatch(ctx, c.Match))
		}
		return d.moved(d.s.Seek(ctx, c.Seq))
	case debug.Break:
		bp, err := d.s.Break(ctx, c.Spec)
		if err != nil {
			return err
		}
		d.printf("breakpoint %d: %s %s\n", bp.ID, bp.Kind, bp.Spec)
		if w := d.s.BreakWarning(bp); w != "" {
			d.printf("%s\n", d.p.yellow("warning: "+w))
		}
	case debug.Delete:
		if err := d.s.Delete(ctx, c.ID); err != nil {
			return err
		}
		d.printf("deleted breakpoint %d\n", c.ID)
	case debug.ListBreakpoints:
		return d.listBreaks(ctx)
	case debug.List:
		lines, err := d.s.List(ctx, c.Around)
		if err != nil {
			return err
		}
		for _, l := range lines {
			d.printf("%s\n", msgLine(l.Msg, l.Current, d.cols()))
		}
	case debug.Print:
		return d.print(ctx, c)
	case debug.Diff:
		return d.diff()
	case debug.Speed:
		if err := d.s.SetSpeed(ctx, c.Speed); err != nil {
			return err
		}
		d.printf("speed %s\n", c.Speed)
	case debug.ShowStatus:
		st, err := d.s.Status(ctx)
		if err != nil {
			return err
		}
		d.printf("%s\n", statusLine(st.Status, st.Next, st.Checked))
		if st.Status.Note != "" {
			d.printf("note: %s\n", st.Status.Note)
		}
	case debug.Inject:
		r, err := d.s.Inject(ctx, c.Msg) // shown by show when it came
		if err != nil {
			return err
		}
		if r == nil {
			d.printf("sent; no result came in %s\n", d.s.Timeout())
		}
	case debug.Modify:
		if err := d.s.Modify(ctx, c.Msg); err != nil {
			return err
		}
		d.printf("the next message goes out as given (once)\n")
	case debug.Help:
		for _, c := range debug.Commands() {
			name := c.Name
			if c.Alias != "" {
				name += " (" + c.Alias + ")"
			}
			if c.Args != "" {
				name += " " + c.Args
			}
			d.printf("%s\n", helpEntry(name, c.Help, d.cols()))
		}
	case debug.Quit:
		return errQuit
	}
	return nil
}

func (d *debugger) listBreaks(ctx context.Context) error {
	bps, err := d.s.Breakpoints(ctx)
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

func (d *debugger) print(ctx context.Context, c debug.Print) error {
	var m controller.Msg
	var ok bool
	switch c.What {
	case debug.PrintAnswer:
		return d.printAnswer("answer")
	case debug.PrintRecorded:
		return d.printAnswer("recorded")
	case debug.PrintSeq:
		if m, ok = d.s.Message(c.Seq); !ok {
			return fmt.Errorf("print %d: the tape has no message with that seq", c.Seq)
		}
	default:
		var err error
		if m, ok, err = d.s.Next(ctx); err != nil {
			return err
		}
		if !ok {
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
	v, err := d.s.View()
	if err != nil {
		return fmt.Errorf("print %s: %w", which, err)
	}
	b := v.Actual
	if which == "recorded" {
		b = v.Expected
	}
	if b == nil {
		return fmt.Errorf("print %s: seq %d %s has none (%s)", which, v.Seq, v.Method, v.Verdict)
	}
	d.printf("%s to seq %d %s  %s\n", which, v.Seq, v.Method, v.Verdict)
	d.printWrapped(pretty(b))
	return nil
}

func (d *debugger) diff() error {
	v, err := d.s.View()
	if err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	d.printf("seq %d %s: %s\n", v.Seq, v.Method, v.Verdict)
	if len(v.Differences) == 0 && v.Err != "" {
		d.printWrapped("  " + v.Err)
	}
	for _, df := range v.Differences {
		d.printWrapped("  " + diffFull(df))
	}
	return nil
}
