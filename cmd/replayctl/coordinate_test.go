package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/coord"
	"github.com/replayctl/replayctl/internal/testbuf"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
)

// shardProc is a replayctl process a test started.
type shardProc struct {
	cmd      *exec.Cmd
	out, err testbuf.Buffer
	done     chan struct{}
	code     int
}

// start starts the binary with args and env added, in the repository's
// root; it is killed when the test ends.
func start(t *testing.T, env []string, args ...string) *shardProc {
	t.Helper()
	p := &shardProc{cmd: exec.Command(binary, args...), done: make(chan struct{})}
	p.cmd.Dir = "../.."
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait waits for p to end (60 s at most) and returns its exit status.
func (p *shardProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(60 * time.Second):
		t.Fatalf("%v did not end in 60 s\nstderr:\n%s", p.cmd.Args, p.err.String())
	}
	return 0
}

var listeningLine = regexp.MustCompile(`coordinator: listening on (http://\S+) for`)

// startCoordinator starts replayctl coordinate on a free loopback port
// with the token, and returns it and its URL once it listens.
func startCoordinator(t *testing.T, token string, args ...string) (*shardProc, string) {
	t.Helper()
	p := start(t, []string{coord.EnvToken + "=" + token}, append([]string{"coordinate", "--listen", "127.0.0.1:0"}, args...)...)
	deadline := time.After(30 * time.Second)
	for {
		if m := listeningLine.FindStringSubmatch(p.err.String()); m != nil {
			return p, m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("coordinate ended (exit %d) before it listened:\n%s", p.code, p.err.String())
		case <-deadline:
			t.Fatalf("coordinate did not listen in 30 s:\n%s", p.err.String())
		case <-p.err.Wrote():
		}
	}
}

// startShard starts shard i of a coordinated run with args.
func startShard(t *testing.T, url, token string, i int, args ...string) *shardProc {
	t.Helper()
	return start(t, []string{coord.EnvIndex + "=" + strconv.Itoa(i), coord.EnvToken + "=" + token},
		append(append([]string{"run"}, args...), "--coordinator", url, "-q")...)
}

// TestCoordinatedStaggeredStart starts the coordinator, then 3 shards
// 1 s apart (2 s from the first to the last): the common start comes
// after the last one registered, no shard sends its first request
// before it, and the report has each shard's first request and the
// skew. The figures are logged (BENCHMARKS.md), not asserted.
func TestCoordinatedStaggeredStart(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	const n, token = 3, "s3cret-token"
	dir := t.TempDir()
	merged := filepath.Join(dir, "merged.json")
	c, url := startCoordinator(t, token, "--shards", strconv.Itoa(n), "--start-lead", "300ms", "--report", merged, "-o", "json")
	var last time.Time
	var shards []*shardProc
	for i := range n {
		if i > 0 {
			time.Sleep(time.Second) // the scenario: shards that start 1 s apart
		}
		last = time.Now()
		shards = append(shards, startShard(t, url, token, i, tapePath, "--target", srv.srv.URL, "--sessions", "12", "--speed", "fast", "--shards", strconv.Itoa(n)))
	}
	for i, s := range shards {
		if code := s.wait(t); code != 0 {
			t.Errorf("shard %d: exit %d\n%s", i, code, s.err.String())
		}
	}
	if code := c.wait(t); code != 0 {
		t.Fatalf("coordinate: exit %d\n%s", code, c.err.String())
	}
	rep := readReport(t, merged)
	co := rep.Coordination
	if co == nil || len(co.Shards) != n {
		t.Fatalf("coordination = %+v, want %d shards", co, n)
	}
	if !co.Start.After(last) {
		t.Errorf("the common start %v is not after the last shard started (%v)", co.Start, last)
	}
	var firsts []string
	for i, s := range co.Shards {
		if s.State != "done" || s.FirstSentMS == nil || *s.FirstSentMS < 0 || s.Intervals < 1 {
			t.Fatalf("shard %d: %+v; want done, its first request at or after the common start, an interval or more", i, s)
		}
		firsts = append(firsts, fmt.Sprintf("%.3fms", *s.FirstSentMS))
	}
	if co.SkewMS == nil {
		t.Fatal("no start skew in the report")
	}
	if rep.Summary.Sessions != 12 || rep.Summary.Shards == nil || len(rep.Summary.Shards.Merged) != n {
		t.Errorf("%d sessions, shards %+v; want 12 sessions, all %d shards", rep.Summary.Sessions, rep.Summary.Shards, n)
	}
	t.Logf("shards started 1 s apart: first requests %s after the common start; skew %.3fms", strings.Join(firsts, ", "), *co.SkewMS)
}

// TestCoordinatedAbortOnFail: "requests<K" where each of 2 shards sends
// fewer than K requests and the two together more: --abort-on-fail stops
// every shard when the merged intervals pass K, before the end; each
// shard's report says the coordinator stopped it; the run fails.
//
// "Before the end" is a condition, not a race against the pace: the
// server answers K requests and holds every later one unanswered, so the
// shards cannot reach the end of the tape (each session waits for its
// answer, at most one request each in flight: fewer than the whole run's
// requests are sent); only the coordinator's stop ends them. (With the
// pace alone the shards finished before the stop on a loaded machine.)
func TestCoordinatedAbortOnFail(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	args := []string{"run", tapePath, "--target", srv.srv.URL, "--sessions", "50", "-q"}
	res := replayctl(t, append(args, "--speed", "fast", "-o", "json")...)
	if res.code != 0 {
		t.Fatalf("whole run: exit %d\n%s", res.code, res.stderr)
	}
	var whole report.Report
	decodeJSON(t, res.stdout, &whole)
	total := whole.Performance.Requests
	limit := total * 3 / 4 // each shard sends total/2
	srv.take()
	if sessions, most := int64(50), total-limit; sessions >= most {
		t.Fatalf("%d requests in the whole run: the %d sessions held after the limit %d could send them all", total, sessions, limit)
	}
	srv.holdAfter(limit)

	dir := t.TempDir()
	// rps:100 paces the ~300 messages over ~3 s: the merged count passes
	// the limit at three quarters of the run, and the server holds what
	// comes after.
	res = replayctl(t, append(args, "--speed", "rps:100", "--local-shards", "2", "--abort-on-fail", "--interval", "100ms",
		"--threshold", fmt.Sprintf("requests<%d", limit), "--shard-reports", dir, "-o", "json")...)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	var rep report.Report
	decodeJSON(t, res.stdout, &rep)
	if rep.Coordination == nil || !strings.Contains(rep.Coordination.Stopped, fmt.Sprintf("requests<%d", limit)) {
		t.Fatalf("coordination %+v, want every shard stopped by requests<%d", rep.Coordination, limit)
	}
	if rep.Performance.Requests >= total || rep.Performance.Requests < limit {
		t.Errorf("%d requests: want the run stopped between the limit %d and the end %d", rep.Performance.Requests, limit, total)
	}
	for i := range 2 {
		r := readReport(t, filepath.Join(dir, fmt.Sprintf("shard-%d-of-2.json", i)))
		if !strings.Contains(r.Summary.Aborted, "stopped by the coordinator") || r.Performance.Requests >= limit {
			t.Errorf("shard %d: aborted %q, %d requests; want stopped by the coordinator, fewer than %d alone", i, r.Summary.Aborted, r.Performance.Requests, limit)
		}
	}
	if len(rep.Thresholds) != 1 || rep.Thresholds[0].Passed {
		t.Errorf("thresholds %+v, want requests<%d failed", rep.Thresholds, limit)
	}
}

// TestCoordinatedKilledShard: shard 1 of 3, killed mid-run, is named lost
// after the heartbeat; a process retried for its index after the start is
// told to stop (exit 0); the others' sessions are in the report, which
// fails.
func TestCoordinatedKilledShard(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	srv.take()
	for len(srv.posts) > 0 {
		<-srv.posts
	}
	const n, token = 3, "tok"
	c, url := startCoordinator(t, token, "--shards", "3", "--heartbeat-timeout", "1s", "--interval", "200ms", "-o", "json")
	args := []string{tapePath, "--target", srv.srv.URL, "--sessions", "6", "--speed", "fixed:100ms", "--shards", "3"}
	var shards []*shardProc
	for i := range n {
		shards = append(shards, startShard(t, url, token, i, args...))
	}
	// Every session's initialize has reached the server: every shard is
	// replaying.
	inits := 0
	timeout := time.After(30 * time.Second)
	for inits < 6 {
		select {
		case b := <-srv.posts:
			if strings.Contains(b, `"initialize"`) {
				inits++
			}
		case <-timeout:
			t.Fatalf("%d initialize requests in 30 s, want 6\n%s", inits, c.err.String())
		}
	}
	if err := shards[1].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	retry := startShard(t, url, token, 1, args...)
	if code := retry.wait(t); code != 0 || !strings.Contains(retry.err.String(), "the coordinator says stop") {
		t.Errorf("the retried shard 1: exit %d, want 0 and told to stop\n%s", code, retry.err.String())
	}
	for _, i := range []int{0, 2} {
		if code := shards[i].wait(t); code != 0 {
			t.Errorf("shard %d: exit %d\n%s", i, code, shards[i].err.String())
		}
	}
	if code := c.wait(t); code != 1 {
		t.Fatalf("coordinate: exit %d, want 1\n%s", code, c.err.String())
	}
	var rep report.Report
	decodeJSON(t, c.out.String(), &rep)
	if !strings.Contains(rep.Summary.Aborted, "shard 1/3 no heartbeat") {
		t.Errorf("summary.aborted = %q, want shard 1/3 named lost", rep.Summary.Aborted)
	}
	co := rep.Coordination
	if co == nil || co.Shards[1].State != "dead" || co.Shards[1].Attempts != 1 || co.Shards[0].State != "done" || co.Shards[2].State != "done" {
		t.Errorf("coordination = %+v, want shard 1 dead (one attempt), 0 and 2 done", co)
	}
	if s := rep.Summary.Shards; s == nil || !slices.Equal(s.Missing, []int{1}) || rep.Summary.Sessions != 4 {
		t.Errorf("summary.shards = %+v with %d sessions, want shard 1 missing and 4 sessions of 6", s, rep.Summary.Sessions)
	}
}

// TestCoordinateErrors: what a coordinated run cannot do is exit 2,
// saying what to give; a shard of another run (other flags) is refused.
func TestCoordinateErrors(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"run", "examples/quickstart.jsonl", "--coordinator", "http://127.0.0.1:1"}, "give the shard"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--shards", "3"}, "REPLAYCTL_SHARD_INDEX"},
		{[]string{coord.EnvIndex + "=3"}, []string{"run", "examples/quickstart.jsonl", "--shards", "3"}, "from 0 to 2"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--shard", "0/2", "--shards", "2"}, "not both"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--shards", "2", "--coordinator", "127.0.0.1:7340"}, "want the coordinator's URL"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--abort-on-fail"}, "the coordinator's"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--local-shards", "2", "--interval", "0s"}, "--interval"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--coordinator-wait", "5m"}, "give --coordinator URL too"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--local-shards", "2", "--coordinator-wait", "5m"}, "--local-shards starts its own coordinator"},
		{nil, []string{"run", "examples/quickstart.jsonl", "--shard", "0/2", "--coordinator", "http://127.0.0.1:1", "--coordinator-wait", "0s"}, "want a positive duration"},
		{nil, []string{"coordinate"}, "--shards N: say how many shards will connect"},
		{nil, []string{"coordinate", "--shards", "2", "--listen", "0.0.0.0:0"}, "beyond loopback"},
		{nil, []string{"coordinate", "--shards", "2", "--heartbeat-timeout", "1s", "--interval", "2s"}, "want more than --interval"},
	} {
		env := append([]string{coord.EnvIndex + "=", coord.EnvJobIndex + "=", coord.EnvToken + "="}, tc.env...)
		if tc.env == nil && slices.Contains(tc.args, "--shards") && !slices.Contains(tc.args, "--shard") && !slices.Contains(tc.args, "--coordinator") {
			env = nil // neither index variable set at all
		}
		res := replayctlEnv(t, env, "", append(tc.args, "--speed", "fast")...)
		if tc.args[0] == "coordinate" {
			res = replayctlEnv(t, env, "", tc.args...)
		}
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, res.code, res.stderr, tc.want)
		}
	}

	// Another run's shard: other flags, another fingerprint. Whichever
	// registers second is refused; the other waits for its partner.
	_, url := startCoordinator(t, "", "--shards", "2", "--register-timeout", "60s")
	a := startShard(t, url, "", 0, "examples/quickstart.jsonl", "--speed", "fast", "--sessions", "4", "--shards", "2")
	b := startShard(t, url, "", 1, "examples/quickstart.jsonl", "--speed", "fast", "--sessions", "5", "--shards", "2")
	var refused *shardProc
	select {
	case <-a.done:
		refused = a
	case <-b.done:
		refused = b
	case <-time.After(60 * time.Second):
		t.Fatal("neither shard ended in 60 s")
	}
	if refused.code != 2 || !strings.Contains(refused.err.String(), "same tape, config file and run flags") {
		t.Errorf("a shard with other flags: exit %d, want 2 and the fingerprint refused\n%s", refused.code, refused.err.String())
	}
}

// TestCoordinatorInterrupted: SIGINT to the coordinator once the shards
// replay stops every shard through its control poll: each delivers what
// it replayed and exits 0, and the coordinator shows the merged report of
// both and exits 130.
func TestCoordinatorInterrupted(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 4))
	srv.take()
	for len(srv.posts) > 0 {
		<-srv.posts
	}
	c, url := startCoordinator(t, "tok", "--shards", "2", "-o", "json")
	// 4 sessions × 6 messages at fixed:100ms: 2.4 s unless stopped.
	args := []string{tapePath, "--target", srv.srv.URL, "--sessions", "4", "--speed", "fixed:100ms", "--shards", "2"}
	shards := []*shardProc{startShard(t, url, "tok", 0, args...), startShard(t, url, "tok", 1, args...)}
	inits := 0
	timeout := time.After(30 * time.Second)
	for inits < 4 {
		select {
		case b := <-srv.posts:
			if strings.Contains(b, `"initialize"`) {
				inits++
			}
		case <-timeout:
			t.Fatalf("%d initialize requests in 30 s, want 4\n%s", inits, c.err.String())
		}
	}
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for i, s := range shards {
		if code := s.wait(t); code != 0 {
			t.Errorf("shard %d: exit %d, want 0\n%s", i, code, s.err.String())
		}
	}
	if code := c.wait(t); code != exitInterrupted {
		t.Fatalf("coordinate: exit %d, want %d\n%s", code, exitInterrupted, c.err.String())
	}
	var rep report.Report
	decodeJSON(t, c.out.String(), &rep)
	if s := rep.Summary.Shards; s == nil || len(s.Merged) != 2 || rep.Summary.Sent >= 24 {
		t.Errorf("summary.shards %+v, %d sent; want both merged, fewer than 24 sent", s, rep.Summary.Sent)
	}
	if rep.Coordination == nil || !strings.Contains(rep.Coordination.Stopped, "interrupted") || !strings.Contains(rep.Summary.Aborted, "stopped by the coordinator") {
		t.Errorf("coordination %+v, aborted %q; want every shard stopped: the coordinator was interrupted", rep.Coordination, rep.Summary.Aborted)
	}
}
