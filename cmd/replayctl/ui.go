package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/metrics"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/ui"
)

// uiFlags are the browser view's flags (run and debug).
type uiFlags struct {
	addr    string
	remote  bool
	journal int
	bodies  byteSize
	hold    bool
	save    string
}

func addUIFlags(fl *pflag.FlagSet, f *uiFlags) {
	f.bodies = byteSize(ui.DefaultBodies)
	fl.StringVar(&f.addr, "ui", "", "watch (and, in debug, steer) the replay in a browser: serve its page on HOST:PORT, e.g. 127.0.0.1:0 (port 0 picks a free one); the address, with its token, is printed on stderr")
	fl.BoolVar(&f.remote, "ui-remote", false, "allow --ui on an address beyond loopback (other machines can reach the page; the token still guards it)")
	fl.IntVar(&f.journal, "ui-journal", ui.DefaultJournal, "events the page's journal keeps for viewers who come late or reconnect; past it the oldest are dropped and the page says how many")
	fl.Var(&f.bodies, "ui-bodies", "bytes of messages (as sent, the live and the recorded answer) kept for the page's detail view; past it a message's bytes are not kept (a passed message's past an eighth of it)")
	fl.BoolVar(&f.hold, "ui-hold", false, "keep serving the page after the replay has ended, until interrupted (Ctrl-C)")
	fl.StringVar(&f.save, "ui-save", "", "write the page, frozen with the run's events and kept messages, to FILE when the replay ends: one HTML file that opens with no server (--ui not needed)")
}

// browserView is a running --ui: its server, its listener and the
// goroutine that serves it.
type browserView struct {
	s      *ui.Server
	ln     net.Listener // nil: not served (--ui-save alone)
	hold   bool
	save   string
	own    []replay.Option // the view's own metrics, when --metrics counts none
	cancel context.CancelFunc
	g      errgroup.Group
}

// openUI checks the flags and listens, before anything is replayed; nil
// when neither --ui nor --ui-save is given. The replay must take
// view.options(). The page's server also serves the replay's metrics at
// /metrics, behind its token (?token= or Authorization: Bearer): m, the
// instance --metrics serves, or when nil one of the view's own, made
// with mopts. With neither (serve), there is no /metrics.
func openUI(f uiFlags, title string, thresholds []string, m *metrics.Metrics, mopts ...metrics.Option) (*browserView, error) {
	if f.addr == "" {
		if f.remote || f.hold {
			return nil, usageError("--ui-remote and --ui-hold set up --ui: give --ui ADDR too")
		}
		if f.save == "" {
			if f.journal != ui.DefaultJournal || int(f.bodies) != ui.DefaultBodies {
				return nil, usageError("--ui-journal and --ui-bodies set up --ui or --ui-save: give one of them too")
			}
			return nil, nil
		}
	}
	if f.journal < 1 {
		return nil, usageError("--ui-journal %d: want 1 event or more", f.journal)
	}
	if f.save != "" {
		if err := atomicfile.Probe(f.save); err != nil {
			return nil, usageError("--ui-save %s: %v (give a file in a folder that can be written)", f.save, err)
		}
	}
	s := ui.New(ui.WithJournal(f.journal), ui.WithBodies(int64(f.bodies)), ui.WithTitle(title), ui.WithThresholds(thresholds...))
	if f.addr == "" {
		return &browserView{s: s, save: f.save}, nil
	}
	if _, err := strconv.ParseUint(f.addr, 10, 16); err != nil && !f.remote && !transport.IsLoopbackAddr(f.addr) {
		return nil, usageError("--ui %s: beyond loopback, other machines could reach the page (and, in debug, steer the replay); use 127.0.0.1:PORT, or add --ui-remote to mean it", f.addr)
	}
	ln, err := listenTCP("--ui", f.addr)
	if err != nil {
		return nil, err
	}
	v := &browserView{s: s, ln: ln, hold: f.hold, save: f.save}
	if m == nil && mopts == nil { // serve: no replay to count
		return v, nil
	}
	if m == nil {
		m = metrics.New(mopts...)
		v.own = []replay.Option{replay.Events(m.Consumer())}
	}
	if err := s.Handle(metricsPath, m); err != nil {
		ln.Close()
		return nil, err
	}
	return v, nil
}

// options are the replay options that feed the page.
func (v *browserView) options() []replay.Option {
	if v == nil {
		return nil
	}
	return append(v.s.Options(), v.own...)
}

// start serves the page (with c, a debugger's controller, or nil) until
// stop, and prints its address on w: the process's own stderr, not the
// one that masks URLs' secrets, since the token is the point.
func (v *browserView) start(ctx context.Context, w io.Writer, c *controller.Controller) {
	if v == nil || v.ln == nil {
		return
	}
	if c != nil {
		_ = v.s.Control(c) // before Serve: never fails
	}
	ctx, v.cancel = context.WithCancel(context.WithoutCancel(ctx))
	v.g.Go(func() error { return v.s.Serve(ctx, v.ln) })
	fmt.Fprintf(w, "ui: %s\n", v.s.URL(v.ln))
}

// finish shows the run's verdict on the page, and writes the frozen page
// (--ui-save).
func (v *browserView) finish(rep *report.Report) error {
	return v.finishWith(func(s *ui.Server) { s.Finish(rep) })
}

// wait keeps the page, with --ui-hold, until ctx is done (an interrupt);
// after the summary.
func (v *browserView) wait(ctx context.Context, w io.Writer) {
	if v != nil && v.hold {
		fmt.Fprintf(w, "ui: the replay is over; the page stays at %s until interrupted (Ctrl-C)\n", v.s.URL(v.ln))
		<-ctx.Done()
	}
}

// stop ends the page's server and waits for it.
func (v *browserView) stop() {
	if v == nil || v.cancel == nil {
		return
	}
	v.cancel()
	_ = v.g.Wait()
}
