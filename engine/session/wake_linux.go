package session

// A wake-up the kernel times (alarm.setKernel), on Linux a timerfd read
// through Go's network poller: it fires within microseconds where Go's
// timers, whose poller waits in whole milliseconds, fire up to 1 ms late.

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// kernelWake is a timerfd and at most one goroutine reading it, only
// while it is armed: a goroutine blocked on a read would keep
// testing/synctest's fake clock from moving.
type kernelWake struct {
	f  *os.File
	fd int
	c  chan time.Time // ticks once per arming that comes

	mu      sync.Mutex
	armed   bool // set, not stopped
	reading bool // a goroutine reads (wg counts it)
	wg      sync.WaitGroup
}

// newKernelWake returns a kernel-timed wake-up, or nil where none can
// be made (the caller uses a timer).
func newKernelWake() *kernelWake {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &kernelWake{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd, c: make(chan time.Time, 1)}
}

// arm sets the wake-up d from now (at least 1 ns: zero would disarm).
func (w *kernelWake) arm(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	select { // a tick of an earlier arming
	case <-w.c:
	default:
	}
	w.armed = true
	w.settime(max(d, 1))
	if !w.reading {
		w.reading = true
		w.wg.Add(1)
		go w.read()
	}
}

// stop makes the timerfd fire at once, with no tick, so that a
// goroutine reading ends.
func (w *kernelWake) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	w.settime(1)
}

// close ends the goroutine, if one reads, and the timerfd.
func (w *kernelWake) close() {
	w.stop()
	w.wg.Wait()
	w.f.Close()
}

// settime sets the timerfd (a new setting forgets expiries not read).
func (w *kernelWake) settime(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(w.fd, 0, &spec, nil); err != nil && w.armed {
		// Not for a valid timerfd and time; tick so that the actor
		// looks again rather than wait for nothing.
		w.tick()
	}
}

func (w *kernelWake) tick() {
	select {
	case w.c <- time.Now():
	default:
	}
}

// read waits for an expiry and ends, ticking if the wake-up is armed.
// An expiry it reads may be of an earlier setting (it cannot tell): the
// tick is then early, and the actor, finding nothing due, sets the alarm
// again; a tick is never lost.
func (w *kernelWake) read() {
	defer w.wg.Done()
	var buf [8]byte
	_, err := w.f.Read(buf[:])
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reading = false
	if err == nil && w.armed {
		w.tick()
	}
}
