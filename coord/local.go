package coord

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/replayctl/replayctl/internal/orphan"
	"github.com/replayctl/replayctl/report"
)

// Process is how one shard process of RunLocal ended.
type Process struct {
	Index int
	// Err is how the process ended (nil for exit status 0), or why it
	// could not start.
	Err error
	// Code is its exit status; -1 when a signal ended it or it could not
	// start.
	Code int
}

// LocalOption configures RunLocal.
type LocalOption func(*localSettings)

type localSettings struct {
	token     string
	stderr    io.Writer
	onStarted []func(index, pid int)
}

// LocalToken is the shared secret the shard processes get in EnvToken
// (the coordinator's Token, "" for none).
func LocalToken(token string) LocalOption { return func(s *localSettings) { s.token = token } }

// LocalStderr is where the shard processes' stderr goes (this process's
// by default).
func LocalStderr(w io.Writer) LocalOption { return func(s *localSettings) { s.stderr = w } }

// OnStarted adds a hook called when shard index's process has started.
func OnStarted(f func(index, pid int)) LocalOption {
	return func(s *localSettings) { s.onStarted = append(s.onStarted, f) }
}

// localWaitDelay is how long an interrupted shard process has to stop
// before it is killed.
const localWaitDelay = 10 * time.Second

// RunLocal runs the coordinated run of s as processes on this machine,
// as the pods of a Kubernetes Indexed Job would: it serves s on ln
// (Serve) and starts one process of name with args per shard, each with
// its index in EnvIndex and the token in EnvToken in its environment
// (args must make it a shard of s: its count and ln's URL), and EnvLocal
// set. A process
// that ends, or cannot start, without a report is lost to s (Lost). It
// returns once the run is over and every process is gone: the merged
// report and how each process ended, by index.
//
// When ctx is done every process is sent os.Interrupt (a shard then
// stops and delivers what it replayed) and killed if it has not ended
// 10 s later; the coordinator tells the shards to stop and still waits
// for their reports. Once the run is over (Serve returned), a process
// whose shard delivered no report (one that hangs before it registers,
// say) is stopped the same way at once, and one that did has 10 s to
// exit before it is too. A killed parent takes its shard processes with
// it where the system allows (see internal/orphan).
func (s *Server) RunLocal(ctx context.Context, ln net.Listener, name string, args []string, opts ...LocalOption) (*report.Report, []Process, error) {
	st := localSettings{stderr: os.Stderr}
	for _, opt := range opts {
		opt(&st)
	}
	n := s.count
	procs := make([]Process, n)
	stops := make([]context.CancelFunc, n) // stop process i (os.Interrupt)
	var wg sync.WaitGroup
	for i := range n {
		p := &procs[i]
		p.Index = i
		pctx, stop := context.WithCancel(ctx)
		stops[i] = stop
		c := exec.CommandContext(pctx, name, args...)
		c.Env = append(os.Environ(), EnvIndex+"="+strconv.Itoa(i), EnvToken+"="+st.token, EnvLocal+"=1")
		// Interrupted, a shard stops as replayctl does on Ctrl-C and
		// delivers the report of what it replayed.
		c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
		c.WaitDelay = localWaitDelay
		c.Stderr = st.stderr
		orphan.DieWithParent(c)
		if err := c.Start(); err != nil {
			p.Err, p.Code = err, -1
			s.Lost(i, err.Error())
			continue
		}
		for _, f := range st.onStarted {
			f(i, c.Process.Pid)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Err = c.Wait()
			p.Code = c.ProcessState.ExitCode()
			why := "exit status " + strconv.Itoa(p.Code)
			if p.Err != nil {
				why = p.Err.Error()
			}
			s.Lost(i, why) // nothing to a shard whose report is in
		}()
	}
	rep, err := s.Serve(ctx, ln)
	// The run is over: no one waits for the shards that did not report.
	for i, stop := range stops {
		if !s.reported(i) {
			stop()
		}
	}
	late := time.AfterFunc(localWaitDelay, func() {
		for _, stop := range stops {
			stop()
		}
	})
	wg.Wait()
	late.Stop()
	for _, stop := range stops {
		stop()
	}
	return rep, procs, err
}

// reported reports whether shard i delivered its final word: its report,
// or why it has none.
func (s *Server) reported(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shards[i].phase == done
}
