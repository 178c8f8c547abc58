package controller

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
)

// TestScripts runs every testdata/*.txt script against a fake pipeline,
// inside a synctest bubble (a fake clock: times in scripts are exact).
//
// A script is a list of lines; # starts a comment. Set-up lines come first:
//
//	tape N [gap=D]        N client requests, seq 0..N-1, recorded gap apart
//	method SEQ NAME       change the method of a message
//	fail SEQ [VERDICT]    the message is judged failed (or VERDICT)
//	option start-running | on-error=continue | speed=S | send-delay=D | answer-delay=D
//
// Then commands and what must follow them:
//
//	> CMD ARGS            run a command (start, pause, resume, step [n], seek N,
//	                      seekmatch SPEC, break SPEC, delete ID, breakpoints,
//	                      speed S, inject SESSION JSON, modify JSON, status,
//	                      waitstop, stop); it must succeed unless "!" follows
//	! TEXT                the command failed with an error containing TEXT
//	= LINE                the next line of the command's output
//	sent SEQ... | sent -  what reached the target since the last "sent"
//	                      (a stale message shows as SEQ!, an injected one as
//	                      inject:SESSION); synctest.Wait() first
//	raw SEQ JSON          the bytes sent for SEQ (the last time)
//	at SEQ D              SEQ was sent D after the replay started
//	status STATE k=v...   the status: seq, reason, released, sent, judged,
//	                      speed, last (SEQ:VERDICT), note (a substring)
//	subscribe NAME BUF    subscribe, and never read until:
//	sub NAME k=v...       drain NAME; check dropped>=N, state=S of the last
//	wait                  synctest.Wait()
//	sleep D               let D of fake time pass
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scripts in testdata")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			lines, err := readScript(f)
			if err != nil {
				t.Fatal(err)
			}
			synctest.Test(t, func(t *testing.T) { runScript(t, f, lines) })
		})
	}
}

type scriptLine struct {
	n    int
	text string
}

func readScript(path string) ([]scriptLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []scriptLine
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		t := strings.TrimSpace(s.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, scriptLine{n, t})
	}
	return out, s.Err()
}

type scriptRun struct {
	t       *testing.T
	file    string
	e       *fakeEngine
	c       *Controller
	opts    []Option
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	runErr  error
	logPos  int
	lastErr error
	errSeen bool
	output  []string
	subs    map[string]<-chan Status
	unsubs  []func()
}

func runScript(t *testing.T, file string, lines []scriptLine) {
	s := &scriptRun{t: t, file: file, e: &fakeEngine{fails: map[int64]report.Verdict{}}, subs: map[string]<-chan Status{}}
	i := 0
	for ; i < len(lines); i++ {
		if !s.setup(lines[i]) {
			break
		}
	}
	s.begin()
	defer s.end()
	for ; i < len(lines); i++ {
		s.line(lines[i])
	}
	s.checkErrSeen()
}

func (s *scriptRun) fatalf(l scriptLine, format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("%s:%d: %s: %s", s.file, l.n, l.text, fmt.Sprintf(format, args...))
}

func (s *scriptRun) errorf(l scriptLine, format string, args ...any) {
	s.t.Helper()
	s.t.Errorf("%s:%d: %s: %s", s.file, l.n, l.text, fmt.Sprintf(format, args...))
}

// setup reads a set-up line; false when l is not one.
func (s *scriptRun) setup(l scriptLine) bool {
	f := strings.Fields(l.text)
	switch f[0] {
	case "tape":
		n, err := strconv.Atoi(f[1])
		if err != nil {
			s.fatalf(l, "%v", err)
		}
		gap := 100 * time.Millisecond
		if len(f) > 2 {
			gap = s.duration(l, strings.TrimPrefix(f[2], "gap="))
		}
		s.e.tape = newTape(n, gap)
	case "method":
		seq := s.int(l, f[1])
		s.e.tape[seq].Method = f[2]
		s.e.tape[seq].setRaw()
	case "fail":
		v := report.Failed
		if len(f) > 2 {
			v = report.Verdict(f[2])
		}
		s.e.fails[s.int(l, f[1])] = v
	case "option":
		k, v, _ := strings.Cut(f[1], "=")
		switch k {
		case "start-running":
			s.opts = append(s.opts, WithStartRunning())
		case "on-error":
			p, err := ParseOnError(v)
			if err != nil {
				s.fatalf(l, "%v", err)
			}
			s.opts = append(s.opts, WithOnError(p))
		case "speed":
			sp, err := scheduler.Parse(v)
			if err != nil {
				s.fatalf(l, "%v", err)
			}
			s.e.speed = sp
			s.opts = append(s.opts, WithSpeed(sp))
		case "send-delay":
			s.e.sendDelay = s.duration(l, v)
		case "answer-delay":
			s.e.answerDelay = s.duration(l, v)
		default:
			s.fatalf(l, "unknown option")
		}
	default:
		return false
	}
	return true
}

func (s *scriptRun) begin() {
	log := zerolog.New(zerolog.NewTestWriter(s.t))
	s.c = New(s.e, append([]Option{WithLogger(log)}, s.opts...)...)
	s.e.c = s.c
	s.ctx, s.cancel = context.WithCancel(s.t.Context())
	s.wg.Go(func() { s.runErr = s.c.Run(s.ctx) })
	s.e.run(s.ctx, &s.wg)
}

func (s *scriptRun) end() {
	for _, u := range s.unsubs {
		u()
	}
	if err := s.c.Stop(s.ctx); err != nil {
		s.t.Errorf("Stop: %v", err)
	}
	s.cancel()
	s.wg.Wait()
	if s.runErr != nil {
		s.t.Errorf("Run: got %v, want nil after Stop", s.runErr)
	}
}

func (s *scriptRun) int(l scriptLine, v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		s.fatalf(l, "%v", err)
	}
	return n
}

func (s *scriptRun) duration(l scriptLine, v string) time.Duration {
	d, err := time.ParseDuration(v)
	if err != nil {
		s.fatalf(l, "%v", err)
	}
	return d
}

// checkErrSeen fails on a command error no "!" line expected.
func (s *scriptRun) checkErrSeen() {
	s.t.Helper()
	if s.lastErr != nil && !s.errSeen {
		s.t.Fatalf("%s: unexpected error: %v", s.file, s.lastErr)
	}
}

func (s *scriptRun) line(l scriptLine) {
	s.t.Helper()
	cmd, rest, _ := strings.Cut(l.text, " ")
	rest = strings.TrimSpace(rest)
	if cmd != "!" {
		if s.lastErr != nil && !s.errSeen {
			s.fatalf(l, "the command before failed: %v", s.lastErr)
		}
	}
	switch cmd {
	case ">":
		s.lastErr, s.errSeen = nil, false
		s.output = nil
		s.lastErr = s.command(l, rest)
		synctest.Wait()
	case "!":
		if s.lastErr == nil || !strings.Contains(s.lastErr.Error(), rest) {
			s.errorf(l, "got error %v, want one containing %q", s.lastErr, rest)
		}
		s.errSeen = true
	case "=":
		if len(s.output) == 0 {
			s.errorf(l, "got no more output, want %q", rest)
			return
		}
		if s.output[0] != rest {
			s.errorf(l, "got output %q, want %q", s.output[0], rest)
		}
		s.output = s.output[1:]
	case "wait":
		synctest.Wait()
	case "sleep":
		time.Sleep(s.duration(l, rest))
		synctest.Wait()
	case "sent":
		synctest.Wait()
		var recs []sentRec
		recs, s.logPos = s.e.takeLog(s.logPos)
		if got := formatLog(recs); got != rest {
			s.errorf(l, "got sent %s, want %s", got, rest)
		}
	case "raw":
		seq, want, _ := strings.Cut(rest, " ")
		recs, _ := s.e.takeLog(0)
		got := "(not sent)"
		for _, r := range recs {
			if r.session == "" && strconv.FormatInt(r.seq, 10) == seq {
				got = r.raw
			}
		}
		if got != want {
			s.errorf(l, "got raw %s, want %s", got, want)
		}
	case "at":
		seq, d, _ := strings.Cut(rest, " ")
		want := s.duration(l, d)
		recs, _ := s.e.takeLog(0)
		for _, r := range recs {
			if r.session == "" && !r.stale && strconv.FormatInt(r.seq, 10) == seq {
				if r.at != want {
					s.errorf(l, "got seq %s sent at %v, want %v", seq, r.at, want)
				}
				return
			}
		}
		s.errorf(l, "seq %s was not sent", seq)
	case "status":
		st, err := s.c.Status(s.ctx)
		if err != nil {
			s.fatalf(l, "Status: %v", err)
		}
		s.checkStatus(l, st, rest)
	case "subscribe":
		name, buf, _ := strings.Cut(rest, " ")
		ch, unsub := s.c.Subscribe(int(s.int(l, buf)))
		s.subs[name] = ch
		s.unsubs = append(s.unsubs, unsub)
	case "sub":
		name, checks, _ := strings.Cut(rest, " ")
		s.checkSub(l, name, checks)
	default:
		s.fatalf(l, "unknown line")
	}
}

// command runs one controller command and sets its output lines.
func (s *scriptRun) command(l scriptLine, text string) error {
	name, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	// A bound (of fake time) turns a command that would hang into a
	// readable failure instead of a synctest deadlock.
	ctx, cancel := context.WithTimeout(s.ctx, time.Hour)
	defer cancel()
	switch name {
	case "start":
		return s.c.Start(ctx)
	case "pause":
		return s.c.Pause(ctx)
	case "resume", "continue":
		return s.c.Resume(ctx)
	case "step":
		n := 1
		if arg != "" {
			n = int(s.int(l, arg))
		}
		res, err := s.c.Step(ctx, n)
		s.output = append(s.output, "results "+formatResults(res))
		return err
	case "seek":
		return s.c.Seek(ctx, s.int(l, arg))
	case "seekmatch":
		seq, err := s.c.SeekMatch(ctx, arg)
		s.output = append(s.output, fmt.Sprintf("seq %d", seq))
		return err
	case "break":
		bp, err := s.c.AddBreakpoint(ctx, arg)
		s.output = append(s.output, fmt.Sprintf("breakpoint %d %s %s", bp.ID, bp.Kind, bp.Spec))
		return err
	case "delete":
		return s.c.RemoveBreakpoint(ctx, int(s.int(l, arg)))
	case "breakpoints":
		bps, err := s.c.Breakpoints(ctx)
		for _, b := range bps {
			line := fmt.Sprintf("%d %s %s hits=%d", b.ID, b.Kind, b.Spec, b.Hits)
			if b.Err != "" {
				line += " err"
			}
			s.output = append(s.output, line)
		}
		return err
	case "speed":
		sp, err := scheduler.Parse(arg)
		if err != nil {
			return err
		}
		return s.c.SetSpeed(ctx, sp)
	case "inject":
		session, msg, _ := strings.Cut(arg, " ")
		return s.c.Inject(ctx, session, []byte(msg))
	case "modify":
		return s.c.ModifyNext(ctx, []byte(arg))
	case "status":
		st, err := s.c.Status(ctx)
		s.output = append(s.output, formatStatus(st))
		return err
	case "waitstop":
		st, err := s.c.WaitStop(ctx)
		s.output = append(s.output, formatStatus(st))
		return err
	case "stop":
		return s.c.Stop(ctx)
	}
	s.fatalf(l, "unknown command")
	return nil
}

func formatResults(rs []report.Result) string {
	if len(rs) == 0 {
		return "-"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d:%s", r.Seq, r.Verdict)
	}
	return strings.Join(parts, " ")
}

func formatStatus(st Status) string {
	return fmt.Sprintf("%s seq=%d reason=%q", st.State, st.Seq, st.Reason)
}

// statusFields is a status as the script's key=value pairs.
func statusFields(st Status) map[string]string {
	last := "-"
	if st.Last != nil {
		last = fmt.Sprintf("%d:%s", st.Last.Seq, st.Last.Verdict)
	}
	return map[string]string{
		"seq":      strconv.FormatInt(st.Seq, 10),
		"reason":   st.Reason,
		"released": strconv.FormatInt(st.Released, 10),
		"sent":     strconv.FormatInt(st.Sent, 10),
		"judged":   strconv.FormatInt(st.Judged, 10),
		"speed":    st.Speed,
		"last":     last,
		"note":     st.Note,
	}
}

func (s *scriptRun) checkStatus(l scriptLine, st Status, spec string) {
	s.t.Helper()
	toks, err := fields(spec)
	if err != nil {
		s.fatalf(l, "%v", err)
	}
	if len(toks) == 0 {
		s.fatalf(l, "want a state")
	}
	if got := string(st.State); got != toks[0] {
		s.errorf(l, "got state %s, want %s (%s)", got, toks[0], formatStatus(st))
	}
	got := statusFields(st)
	for _, kv := range toks[1:] {
		k, want, _ := strings.Cut(kv, "=")
		g, ok := got[k]
		switch {
		case !ok:
			s.fatalf(l, "unknown status key %q", k)
		case k == "note":
			if !strings.Contains(g, want) {
				s.errorf(l, "got note %q, want one containing %q", g, want)
			}
		case g != want:
			s.errorf(l, "got %s=%s, want %s", k, g, want)
		}
	}
}

func (s *scriptRun) checkSub(l scriptLine, name, checks string) {
	ch, ok := s.subs[name]
	if !ok {
		s.fatalf(l, "no subscriber %s", name)
	}
	var last Status
	n := 0
	for more := true; more; {
		select {
		case st, open := <-ch:
			if !open {
				more = false
				break
			}
			last, n = st, n+1
		default:
			more = false
		}
	}
	if n == 0 {
		s.errorf(l, "got no update")
		return
	}
	for _, kv := range strings.Fields(checks) {
		switch {
		case strings.HasPrefix(kv, "dropped>="):
			if want := s.int(l, strings.TrimPrefix(kv, "dropped>=")); last.Dropped < want {
				s.errorf(l, "got dropped=%d, want >= %d", last.Dropped, want)
			}
		case strings.HasPrefix(kv, "dropped="):
			if want := s.int(l, strings.TrimPrefix(kv, "dropped=")); last.Dropped != want {
				s.errorf(l, "got dropped=%d, want %d", last.Dropped, want)
			}
		case strings.HasPrefix(kv, "state="):
			if want := strings.TrimPrefix(kv, "state="); string(last.State) != want {
				s.errorf(l, "got state=%s, want %s", last.State, want)
			}
		case strings.HasPrefix(kv, "updates="):
			if want := s.int(l, strings.TrimPrefix(kv, "updates=")); int64(n) != want {
				s.errorf(l, "got %d updates, want %d", n, want)
			}
		default:
			s.fatalf(l, "unknown check %q", kv)
		}
	}
}

// fields splits on spaces, keeping key="quoted value" together.
func fields(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		end := strings.IndexByte(s, ' ')
		if eq := strings.Index(s, `="`); eq >= 0 && (end < 0 || eq < end) {
			q, err := strconv.QuotedPrefix(s[eq+1:])
			if err != nil {
				return nil, fmt.Errorf("bad quoting in %q: %w", s, err)
			}
			v, _ := strconv.Unquote(q)
			out = append(out, s[:eq+1]+v)
			s = s[eq+1+len(q):]
			continue
		}
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out, nil
}
