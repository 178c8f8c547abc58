package debug_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/debug"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

const quickstart = "../examples/quickstart.jsonl"

// shown collects what a session's OnShow hook is handed.
type shown struct {
	mu   sync.Mutex
	rs   []report.Result
	prev report.Result // the last one, kept by take
}

func (s *shown) hook() debug.Option {
	return debug.OnShow(func(r report.Result) { s.mu.Lock(); s.rs = append(s.rs, r); s.prev = r; s.mu.Unlock() })
}

// last is the last result handed.
func (s *shown) last() report.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prev
}

// take returns "seq method verdict" for each result handed since the
// last take.
func (s *shown) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.rs {
		out = append(out, fmt.Sprintf("%d %s %s", r.Seq, r.Method, r.Verdict))
	}
	s.rs = nil
	return out
}

// bounded is a context for one session: generous, so that only a hang
// ends it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func wantNext(t *testing.T, what string, p debug.Place, err error, seq int64) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !p.HasNext || p.Next.Seq != seq {
		t.Fatalf("%s: the replay stands before %+v (has %v), want before seq %d", what, p.Next, p.HasNext, seq)
	}
}

func wantShown(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s showed %q, want %q", what, got, want)
	}
}

// The moves of a session against the built-in mock: the handshake, a
// breakpoint by seq and one by expression, continue, seek by seq and by
// method, step, and what status, list and the tape's messages say.
func TestSessionMovesAgainstTheMock(t *testing.T) {
	var sh shown
	s, err := debug.New(tape.File(quickstart), sh.hook())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Run(bounded(t), func(ctx context.Context) error {
		p, err := s.Begin(ctx)
		wantNext(t, "begin", p, err, 3)
		wantShown(t, "the handshake", sh.take(), "0 initialize passed", "2 notifications/initialized sent")
		if p.Status.State != controller.Paused || p.Stopped() {
			t.Errorf("after the handshake: %s (%s), stopped at something %v: want paused by the step", p.Status.State, p.Status.Reason, p.Stopped())
		}

		if _, err := s.Break(ctx, "14"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Break(ctx, `params.name == "add"`); err != nil {
			t.Fatal(err)
		}
		p, err = s.Continue(ctx)
		wantNext(t, "continue", p, err, 7)
		wantShown(t, "continue", sh.take(), "3 tools/list passed", "5 tools/call passed")
		if !p.Stopped() || !strings.HasPrefix(p.Status.Reason, "breakpoint 2") {
			t.Errorf("continue stopped for %q, want breakpoint 2", p.Status.Reason)
		}
		if err := s.Delete(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, 2); err == nil || !strings.Contains(err.Error(), "delete 2") {
			t.Errorf("deleting breakpoint 2 twice: %v, want an error naming it", err)
		}
		p, err = s.Continue(ctx)
		wantNext(t, "continue to seq 14", p, err, 14)
		wantShown(t, "continue to seq 14", sh.take(), "7 tools/call passed", "10 resources/list passed", "12 resources/read passed")
		bps, err := s.Breakpoints(ctx)
		if err != nil || len(bps) != 1 || bps[0].Spec != "14" || bps[0].Hits != 1 {
			t.Errorf("breakpoints %+v, %v: want the one at seq 14, hit once", bps, err)
		}

		p, err = s.Seek(ctx, 5)
		wantNext(t, "seek 5", p, err, 5)
		wantShown(t, "seek", sh.take())
		p, err = s.Step(ctx, 1)
		wantNext(t, "step after the seek", p, err, 7)
		wantShown(t, "step after the seek", sh.take(), "5 tools/call passed")
		p, err = s.SeekMatch(ctx, "resources/read")
		wantNext(t, "seek resources/read", p, err, 12)
		if _, err := s.SeekMatch(ctx, "nothing/like/it"); !errors.Is(err, controller.ErrNoMatch) {
			t.Errorf("seek to a method not on the tape: %v, want ErrNoMatch", err)
		}

		st, err := s.Status(ctx)
		if err != nil || st.Next != 12 || st.Checked != 7 {
			t.Errorf("status %+v, %v: want next 12, 7 checked (the handshake's answer, 5 to seq 12, seq 5 again)", st, err)
		}
		lines, err := s.List(ctx, 1)
		if err != nil || len(lines) != 3 || lines[0].Msg.Seq != 11 || !lines[1].Current || lines[1].Msg.Seq != 12 || lines[2].Current {
			t.Errorf("list 1: %+v, %v: want seq 11 to 13, 12 current", lines, err)
		}
		if m, ok, err := s.Next(ctx); err != nil || !ok || m.Method != "resources/read" {
			t.Errorf("next: %+v %v %v, want resources/read", m, ok, err)
		}
		if _, ok := s.Message(999); ok {
			t.Errorf("the tape has a seq 999")
		}
		if got := s.Methods(); !slices.Equal(got, []string{"initialize", "notifications/initialized", "ping", "resources/list", "resources/read", "tools/call", "tools/list"}) {
			t.Errorf("methods %q", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep == nil || !rep.Passed() || rep.Validation.Checked != 7 {
		t.Errorf("report %+v: want passed, 7 checked", rep)
	}
	if _, err := s.Run(t.Context(), func(context.Context) error { return nil }); !errors.Is(err, debug.ErrRunTwice) {
		t.Errorf("a second Run: %v, want ErrRunTwice", err)
	}
}

// StopAtStart stops before the very first message: nothing is sent.
func TestStopAtStart(t *testing.T) {
	var sh shown
	s, err := debug.New(tape.File(quickstart), sh.hook(), debug.StopAtStart())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(bounded(t), func(ctx context.Context) error {
		p, err := s.Begin(ctx)
		wantNext(t, "begin", p, err, 0)
		wantShown(t, "begin", sh.take())
		p, err = s.Step(ctx, 1)
		wantNext(t, "step", p, err, 2)
		wantShown(t, "step", sh.take(), "0 initialize passed")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// Against a real subprocess that answers every request otherwise than
// recorded: continue pauses at the first failed answer, and View holds
// the expected and the actual answer and how they differ. With on-error
// continue the replay goes on to the end.
func TestFailedAnswerAgainstASubprocess(t *testing.T) {
	argv := testserver.Crashy(t)
	// What the server says of itself is not compared: the handshake
	// passes, every answer after it fails.
	ropts := []replay.Option{replay.Against(replay.Command(argv[0], argv[1:]...)),
		replay.Ignore("result.serverInfo", "result.capabilities", "result.instructions", "result.protocolVersion")}
	t.Run("pause", func(t *testing.T) {
		var sh shown
		s, err := debug.New(tape.File(quickstart), sh.hook(), debug.WithReplay(ropts...))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := s.Run(bounded(t), func(ctx context.Context) error {
			if _, err := s.View(); !errors.Is(err, debug.ErrNothingJudged) {
				t.Errorf("the view before any step: %v, want ErrNothingJudged", err)
			}
			p, err := s.Begin(ctx)
			wantNext(t, "begin", p, err, 3)
			wantShown(t, "the handshake", sh.take(), "0 initialize passed", "2 notifications/initialized sent")
			p, err = s.Continue(ctx)
			wantNext(t, "continue", p, err, 5)
			wantShown(t, "continue", sh.take(), "3 tools/list failed")
			if !p.Stopped() || !strings.HasPrefix(p.Status.Reason, "error") {
				t.Errorf("continue stopped for %q, want at the error", p.Status.Reason)
			}
			v, err := s.View()
			if err != nil {
				t.Fatal(err)
			}
			if v.Seq != 3 || v.Method != "tools/list" || v.Verdict != report.Failed || len(v.Differences) == 0 ||
				!strings.Contains(string(v.Actual), `"ok":true`) || !strings.Contains(string(v.Expected), `"tools":[`) {
				t.Errorf("the view %+v\nactual %s\nexpected %s\nwant seq 3 tools/list failed, the server's answer against the recorded one", v, v.Actual, v.Expected)
			}
			if last := sh.last(); !reflect.DeepEqual(debug.ViewOf(last), v) {
				t.Errorf("the view of the last result shown %+v, want the session's %+v", debug.ViewOf(last), v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rep == nil || rep.Passed() || rep.Validation.Failed != 1 {
			t.Errorf("report %+v: want one failure, not passed", rep)
		}
	})
	t.Run("continue", func(t *testing.T) {
		var sh shown
		s, err := debug.New(tape.File(quickstart), sh.hook(), debug.WithReplay(append(ropts, replay.OnError(replay.Continue))...))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := s.Run(bounded(t), func(ctx context.Context) error {
			if _, err := s.Begin(ctx); err != nil {
				return err
			}
			sh.take()
			p, err := s.Continue(ctx)
			if err != nil {
				return err
			}
			if p.Status.State != controller.Ended || p.HasNext {
				t.Errorf("continue with on-error continue: %s (%s), want the end of the tape", p.Status.State, p.Status.Reason)
			}
			if got := sh.take(); len(got) != 7 {
				t.Errorf("continue showed %q, want the 7 messages after the handshake", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rep == nil || rep.Validation.Failed != 7 {
			t.Errorf("report %+v: want the 7 requests after the handshake failed", rep)
		}
	})
}

// A target that dies ends the session: drive's context ends, and Run
// returns the replay's error, a *ReplayError wrapping engine.ErrTarget.
func TestTargetDiesEndsTheSession(t *testing.T) {
	s, err := debug.New(tape.File(quickstart), debug.WithReplay(replay.Against(replay.Command("sh", "-c", "read line; exit 7"))))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Run(bounded(t), func(ctx context.Context) error {
		_, err := s.Begin(ctx) // the death may be seen after the handshake's step
		if err != nil && !debug.Ended(err) {
			t.Errorf("begin against a target that dies: %v, want the session's end", err)
		}
		<-ctx.Done() // the session ends by itself
		return ctx.Err()
	})
	var re *debug.ReplayError
	if !errors.As(err, &re) || !errors.Is(err, engine.ErrTarget) {
		t.Fatalf("Run: %v, want a *ReplayError wrapping engine.ErrTarget", err)
	}
}

// Inject sends a message that is not on the tape and hands its answer
// (seq -1) to OnShow; Modify sends the next message as given.
func TestInjectAndModify(t *testing.T) {
	var sh shown
	var outs [][]byte
	s, err := debug.New(tape.File(quickstart), sh.hook(), debug.OnShow(func(r report.Result) { outs = append(outs, r.Out) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(bounded(t), func(ctx context.Context) error {
		if _, err := s.Begin(ctx); err != nil {
			return err
		}
		sh.take()
		outs = nil
		r, err := s.Inject(ctx, []byte(`{"jsonrpc":"2.0","id":"x1","method":"ping"}`))
		if err != nil || r == nil || r.Seq != -1 || r.Method != "ping" {
			t.Fatalf("inject: %+v, %v: want the ping's result, seq -1", r, err)
		}
		wantShown(t, "inject", sh.take(), fmt.Sprintf("-1 ping %s", r.Verdict))
		if err := s.Modify(ctx, []byte("not json")); err == nil {
			t.Errorf("modify with bytes that are not JSON: no error")
		}
		if err := s.Modify(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c1"}}`)); err != nil {
			t.Fatal(err)
		}
		outs = nil
		if _, err := s.Step(ctx, 1); err != nil {
			return err
		}
		if len(outs) != 1 || !strings.Contains(string(outs[0]), `"cursor":"c1"`) {
			t.Errorf("the step after modify sent %q, want the modified message", outs)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A stop over the control socket ends the session as drive returning
// does: drive's context ends, and Run returns no error.
func TestStopOverTheControlSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "dbg") // short: a socket path has 103 bytes at most
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "c.sock")
	ln, err := controller.ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := debug.New(tape.File(quickstart), debug.WithControl(ln))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Run(bounded(t), func(ctx context.Context) error {
		if _, err := s.Begin(ctx); err != nil {
			return err
		}
		conn, err := net.Dial("unix", path)
		if err != nil {
			return err
		}
		defer conn.Close()
		fmt.Fprintln(conn, `{"id":1,"cmd":"stop"}`)
		br := bufio.NewReader(conn)
		for { // status events, then the reply
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("no reply to stop: %v", err)
			}
			if strings.HasPrefix(line, `{"id":1,`) {
				if !strings.Contains(line, `"ok":true`) {
					t.Errorf("the reply to stop: %s", line)
				}
				break
			}
		}
		<-ctx.Done() // the stop ends the session
		_, err = s.Step(ctx, 1)
		return err // a command cut short by the stop
	})
	if err != nil {
		t.Fatalf("Run after a stop over the control socket: %v, want none", err)
	}
	if rep == nil || !rep.Passed() {
		t.Errorf("report %+v: want the handshake's, passed", rep)
	}
}

// New refuses what cannot make a session: an option a controlled replay
// cannot take, a tape that cannot be read; the error says which.
func TestNewRefuses(t *testing.T) {
	_, err := debug.New(tape.File(quickstart), debug.WithReplay(replay.OnError(replay.Stop)))
	var oe *replay.OptionError
	if !errors.As(err, &oe) || oe.Option != "OnError" {
		t.Errorf("on-error stop: %v, want an *OptionError of OnError", err)
	}
	_, err = debug.New(tape.File(quickstart), debug.MaxLine(64))
	var te *tape.Error
	if !errors.As(err, &te) {
		t.Errorf("a tape with lines over MaxLine: %v, want a *tape.Error", err)
	}
}

// A bad line anywhere in the tape is refused by New, before anything is
// sent. The replay's loader met it a moment after the start, so a session
// that ended first (piped commands that quit at once) was a report of
// nothing checked, without a word of the line, and the same session a
// moment longer the line's error: which one, a race.
func TestNewRefusesABadLineAnywhere(t *testing.T) {
	good, err := os.ReadFile(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []int{4, 12} { // in the handshake, and after it
		t.Run(fmt.Sprintf("line %d", line), func(t *testing.T) {
			lines := strings.SplitAfter(string(good), "\n")
			before := lines[line-1]
			lines[line-1] = regexp.MustCompile(`"seq":\d+`).ReplaceAllString(before, `"seq":"x"`)
			if lines[line-1] == before {
				t.Fatalf("line %d has no seq: fix the test", line)
			}
			s, err := debug.New(tape.Bytes("bad.jsonl", []byte(strings.Join(lines, ""))))
			var te *tape.Error
			if !errors.As(err, &te) || te.Line != int64(line) {
				if err == nil {
					_, err = s.Run(bounded(t), func(context.Context) error { return nil })
					t.Fatalf("New took the tape; a session that quits at once: %v, want New to refuse the *tape.Error of line %d", err, line)
				}
				t.Fatalf("New: %v, want the *tape.Error of line %d", err, line)
			}
		})
	}
}
