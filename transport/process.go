package transport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/orphan"
)

// Process is a child started for its standard streams: the one
// supervisor of the stdio servers replayctl starts (Stdio's, and the
// recording proxy's in package record). StartProcess starts it in a
// process group of its own with its stdin and stdout on pipes, and waits
// for it in a goroutine that ends with it; Stop stops it in one order
// (stdin closed, then SIGTERM, then SIGKILL, each after StopTimeout);
// Status reads how it ended.
//
// Its methods may be called from several goroutines.
type Process struct {
	cmd         *exec.Cmd
	argv        []string
	stdin       *os.File // the write end of its stdin
	stdout      *os.File // the read end of its stdout
	stderr      *os.File // the read end of its stderr; nil when Stderr was given
	stopTimeout time.Duration
	log         zerolog.Logger

	exited  chan struct{} // closed once the process has been waited for
	waitErr error         // cmd.Wait's result; read after exited

	stopOnce  sync.Once
	signalled bool // Stop had to signal it; read after stopOnce
}

// ProcessOptions says how StartProcess starts a process.
type ProcessOptions struct {
	Env []string // extra K=V, added to this process's environment
	Dir string   // working directory; "" for the current one
	// Stderr is where the process's stderr goes; an *os.File is handed to
	// it as it is. nil: a pipe, read from Process.Stderr.
	Stderr io.Writer
	// StopTimeout is how long Stop waits after closing stdin, and again
	// after SIGTERM, before it kills the process. 0 means 2s.
	StopTimeout time.Duration
	// DieWithParent has the kernel kill the process when this one ends,
	// however it ends (see internal/orphan; Linux only).
	DieWithParent bool
	// Logger is told when Stop has to signal the process, with the
	// process's pid added.
	Logger zerolog.Logger
}

// StartProcess starts argv (no shell). It returns once the process has
// started, or an error that wraps ErrTarget when the command cannot be
// started (and says what to check).
func StartProcess(argv []string, o ProcessOptions) (*Process, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("start server: no command given")
	}
	name := strings.Join(argv, " ")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Dir = o.Dir
	SetProcessGroup(cmd)
	if o.DieWithParent {
		orphan.DieWithParent(cmd) // after SetProcessGroup, whose SysProcAttr it extends
	}
	stop := o.StopTimeout
	if stop <= 0 {
		stop = defaultStopTimeout
	}

	var parent, child []*os.File // the ends this process keeps, the child's
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			_ = f.Close()
		}
	}
	pipes := 3
	if o.Stderr != nil {
		pipes = 2
	}
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(parent)
			closeAll(child)
			return nil, fmt.Errorf("start server %q: make pipe: %w", name, err)
		}
		if i == 0 { // stdin: the child reads
			parent, child = append(parent, w), append(child, r)
		} else {
			parent, child = append(parent, r), append(child, w)
		}
	}
	cmd.Stdin, cmd.Stdout = child[0], child[1]
	if o.Stderr != nil {
		cmd.Stderr = o.Stderr
		// A stderr that is not a file is copied by a goroutine of cmd,
		// which Wait waits for: not forever, if a child of the process
		// holds it.
		cmd.WaitDelay = stop
	} else {
		cmd.Stderr = child[2]
	}
	err := cmd.Start()
	closeAll(child)
	if err != nil {
		closeAll(parent)
		hint := "check that the command exists and is executable"
		if errors.Is(err, exec.ErrNotFound) {
			hint = "no such program in PATH; install it or give its full path"
		}
		return nil, fmt.Errorf("%w: start server %q: %w (%s)", ErrTarget, name, err, hint)
	}
	p := &Process{cmd: cmd, argv: append([]string(nil), argv...), stdin: parent[0], stdout: parent[1],
		stopTimeout: stop, log: o.Logger.With().Int("pid", cmd.Process.Pid).Logger(), exited: make(chan struct{})}
	if o.Stderr == nil {
		p.stderr = parent[2]
	}
	go func() { p.waitErr = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// PID is the process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Argv is the command the process was started with.
func (p *Process) Argv() []string { return p.argv }

// Stdin is the write end of the process's stdin.
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the read end of the process's stdout.
func (p *Process) Stdout() *os.File { return p.stdout }

// Stderr is the read end of the process's stderr, or nil when
// ProcessOptions.Stderr took it.
func (p *Process) Stderr() *os.File { return p.stderr }

// Exited is closed once the process has exited and been waited for.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// WaitExit reports whether the process exited within d.
func (p *Process) WaitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// Stop closes the process's stdin, waits up to StopTimeout for it to
// exit, then sends SIGTERM to its process group, waits again, then
// SIGKILL. It returns once the process has exited: true if it had to be
// signalled. Later calls wait for the exit and return the first call's
// answer. It leaves the other pipes open: what the process wrote before
// it exited can still be read.
func (p *Process) Stop() (signalled bool) {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		if p.WaitExit(p.stopTimeout) {
			return
		}
		p.signalled = true
		p.log.Debug().Dur("after", p.stopTimeout).Msg("server still running after stdin closed; sending SIGTERM")
		_ = SignalGroup(p.cmd.Process, false)
		if !p.WaitExit(p.stopTimeout) {
			p.log.Warn().Dur("after", p.stopTimeout).Msg("server ignored SIGTERM; killing it")
			_ = SignalGroup(p.cmd.Process, true)
		}
	})
	<-p.exited
	return p.signalled
}

// KillGroup sends SIGKILL to the process group: to the children the
// process left behind, which could keep its pipes open.
func (p *Process) KillGroup() { _ = SignalGroup(p.cmd.Process, true) }

// Status is how the process ended, once Exited is closed: its exit code,
// or -1 and the name of the signal that ended it. err is Wait's error
// when the process's state is unknown (code is then -1).
func (p *Process) Status() (code int, signal string, err error) {
	ps := p.cmd.ProcessState
	if ps == nil {
		return -1, "", p.waitErr
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String(), nil
	}
	return ps.ExitCode(), "", nil
}
