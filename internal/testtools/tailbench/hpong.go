//go:build linux

package main

// hpong: a lean measuring server for bench-tail.sh (SERVER_KIND=lean).
// The slow test server (internal/testserver/slow, Go's net/http) is the
// instrument every client's schedule is measured at, and it is heavy:
// ~95 µs of its core per call, its goroutines' threads waiting for each
// other, calls read up to 1.1 ms after they reached its socket, and in
// causal order a late answer makes the client's next call late. hpong
// gives the same answers (the bytes of slowmcp.Answer, the same status
// and Content-Type) and the same arrival log, from one locked OS thread
// of raw system calls: epoll over the listener and every connection,
// recvmsg with the kernel's receive stamp, write. No Go network poller,
// no goroutine per connection, and no allocation per request in the
// steady state (answerBody's fast path; the log grows in memory and is
// written once, at exit). It is a measuring instrument, not part of
// replayctl: every client is measured against it alike.
//
//	tailbench hpong -addr 127.0.0.1:18941 -arrivals hpong.log [-expect N] [-for D]
//
// With port 0 (-addr 127.0.0.1:0) the kernel picks one, and hpong says
// which on stderr: "hpong: listening on 127.0.0.1:PORT".
//
// It is a command of its own rather than pong -http: pong is the
// floor's other end, one connection of fixed-size frames read by
// blocking calls, and ping -http already names the bare client over
// HTTP; hpong serves many connections, keep-alive and pipelined, as a
// Streamable HTTP server does.
//
// The log is written (atomically: beside it, then renamed) when hpong
// stops: at SIGTERM or an interrupt, after -expect tools/call (warm-up
// calls not counted) were answered, or after -for.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/replayctl/replayctl/internal/testserver/rxstamp"
	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
)

func hpongCmd(args []string) error {
	fs := flag.NewFlagSet("hpong", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18941", "the `host:port` to listen on (IPv4)")
	path := fs.String("arrivals", "", "the arrival log to write when hpong stops, in the slow server's format")
	expect := fs.Int("expect", 0, "stop once `N` tools/call (not the warm-up's) were answered; 0: at SIGTERM")
	limit := fs.Duration("for", 0, "stop after this long; 0: at SIGTERM")
	_ = fs.Parse(args)
	if *path == "" || *expect < 0 || *limit < 0 {
		return fmt.Errorf("hpong: want -arrivals FILE, -expect >= 0 and -for >= 0")
	}
	// The kernel's receive stamps on before hpong listens and until it
	// stops, so that every request is stamped, the first included
	// (rxstamp.On): a client that connects once the port is open (as
	// tailbench ping and warm do) finds stamping on.
	if rxstamp.Supported {
		off, err := rxstamp.On()
		if err != nil {
			return fmt.Errorf("hpong: %w", err)
		}
		defer off()
	}
	ln, port, err := hpongListen(*addr)
	if err != nil {
		return err
	}
	if strings.HasSuffix(*addr, ":0") {
		// The kernel picked the port: say which, for whoever started hpong.
		fmt.Fprintf(os.Stderr, "hpong: listening on %s:%d\n", strings.TrimSuffix(*addr, ":0"), port)
	}
	s, err := newHpong(ln, *expect, *limit)
	if err != nil {
		unix.Close(ln)
		return err
	}
	return runHpong(s, *path)
}

// runHpong serves with s until SIGTERM, an interrupt, stop, -expect or
// -for, then writes the arrival log to path.
func runHpong(s *hpong, path string) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			s.stop()
		case <-done:
		}
	}()
	defer close(done)
	defer signal.Stop(sig)
	// The log is written even when serving failed (out of descriptors,
	// say): the arrivals before it are measurements all the same.
	st, err := s.serve()
	fmt.Fprintf(os.Stderr, "hpong: %s\n", st)
	if werr := writeFile(path, string(s.log)); werr != nil {
		err = errors.Join(err, fmt.Errorf("hpong: write the arrival log: %w", werr))
	}
	return err
}

// hpongListen listens on addr (port 0: one the kernel picks) with a
// non-blocking socket asking for receive stamps, which what it accepts
// inherits; it returns the socket and the port.
func hpongListen(addr string) (int, int, error) {
	sa, err := sockaddr(addr)
	if err != nil {
		return -1, 0, fmt.Errorf("hpong: -addr: %w", err)
	}
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, fmt.Errorf("hpong: %w", err)
	}
	_ = unix.SetsockoptInt(ln, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	_ = rxstamp.Enable(ln) // unstamped (not Linux): the log has no rx=
	if err := unix.Bind(ln, sa); err != nil {
		unix.Close(ln)
		return -1, 0, fmt.Errorf("hpong: listen on %s: %w", addr, err)
	}
	if err := unix.Listen(ln, 128); err != nil {
		unix.Close(ln)
		return -1, 0, fmt.Errorf("hpong: listen on %s: %w", addr, err)
	}
	got, err := unix.Getsockname(ln)
	if err != nil {
		unix.Close(ln)
		return -1, 0, fmt.Errorf("hpong: %w", err)
	}
	return ln, got.(*unix.SockaddrInet4).Port, nil
}

// hpong is the server: everything in it belongs to the one thread that
// runs serve, but wake, which stop writes from any goroutine.
type hpong struct {
	ln, ep, wake int
	expect       int
	deadline     time.Time // zero: none
	conns        []*hconn  // by descriptor
	free         []*hconn  // closed connections' buffers, for the next
	events       [64]unix.EpollEvent
	oob          []byte
	clock        clock
	log          []byte // the arrival log, written at exit
	body         []byte // the answer being made
	calls        int    // tools/call answered, the warm-up's not counted
	stats        hpongStats

	mu sync.Mutex // guards wake's closing against stop's write: a closed descriptor's number is soon another's
}

// hconn is one connection: what was read and not yet answered, the
// answers not yet written.
type hconn struct {
	fd   int
	in   []byte
	segs []segment // the reads in in, for their receive stamps
	out  []byte
	// answered is the read time (unix ns) of the requests whose answers
	// out holds, for the read-to-written figure.
	answered []int64
	closing  bool // close once out is written
	draining bool // written and shut: read until the client closes
	writing  bool // waiting for room to write out (EPOLLOUT)
}

// segment is one read's bytes in hconn.in: up to end, received at rx.
type segment struct {
	end int
	rx  int64
}

// hpongStats is what hpong says at exit on stderr: its calls and how
// long from reading each request to writing its answer.
type hpongStats struct {
	conns, requests int
	written         []time.Duration // read to answer written, per request
}

func (st hpongStats) String() string {
	if len(st.written) == 0 {
		return fmt.Sprintf("%d connections, %d requests", st.conns, st.requests)
	}
	w := slices.Sorted(slices.Values(st.written))
	return fmt.Sprintf("%d connections, %d requests; read to answer written p50 %.1f µs, p99 %.1f µs, max %.1f µs",
		st.conns, st.requests, us(w[len(w)/2]), us(w[max(len(w)*99/100-1, 0)]), us(w[len(w)-1]))
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// newHpong makes the server of the listening socket ln (non-blocking),
// which stops after expect calls (0: never) or limit (0: never).
func newHpong(ln, expect int, limit time.Duration) (*hpong, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("hpong: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, fmt.Errorf("hpong: %w", err)
	}
	s := &hpong{ln: ln, ep: ep, wake: wake, expect: expect, oob: make([]byte, rxstamp.OOBSize()), log: make([]byte, 0, 1<<20)}
	s.stats.written = make([]time.Duration, 0, 1<<14)
	if limit > 0 {
		s.deadline = time.Now().Add(limit)
	}
	for _, fd := range []int{ln, wake} {
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
			unix.Close(wake)
			unix.Close(ep)
			return nil, fmt.Errorf("hpong: epoll: %w", err)
		}
	}
	return s, nil
}

// stop makes serve return; from any goroutine, any number of times.
func (s *hpong) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wake >= 0 {
		one := [8]byte{1}
		_, _ = unix.Write(s.wake, one[:])
	}
}

// serve answers every connection until stop, -expect or -for, on this
// goroutine's thread, locked to it; it closes every connection, the
// listener and its own descriptors before it returns. s.log is the
// arrival log then.
func (s *hpong) serve() (hpongStats, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer s.closeAll()
	for {
		timeout := -1
		if !s.deadline.IsZero() {
			left := time.Until(s.deadline)
			if left <= 0 {
				return s.stats, nil
			}
			timeout = int(left.Milliseconds()) + 1
		}
		n, err := unix.EpollWait(s.ep, s.events[:], timeout)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return s.stats, fmt.Errorf("hpong: epoll_wait: %w", err)
		}
		for _, ev := range s.events[:n] {
			switch fd := int(ev.Fd); fd {
			case s.wake:
				return s.stats, nil
			case s.ln:
				if err := s.accept(); err != nil {
					return s.stats, err
				}
			default:
				if c := s.conn(fd); c != nil {
					s.ready(c, ev.Events)
				}
			}
		}
		if s.expect > 0 && s.calls >= s.expect && s.written() {
			return s.stats, nil
		}
	}
}

// written reports whether every answer was written.
func (s *hpong) written() bool {
	for _, c := range s.conns {
		if c != nil && len(c.out) > 0 {
			return false
		}
	}
	return true
}

func (s *hpong) conn(fd int) *hconn {
	if fd < len(s.conns) {
		return s.conns[fd]
	}
	return nil
}

// accept takes every connection waiting.
func (s *hpong) accept() error {
	for {
		fd, _, err := unix.Accept4(s.ln, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		switch err {
		case nil:
		case unix.EAGAIN, unix.EINTR, unix.ECONNABORTED:
			return nil
		case unix.EMFILE, unix.ENFILE:
			// Out of descriptors: not hpong's to fix. Say so rather than
			// spin on the listener.
			return fmt.Errorf("hpong: accept: %w (raise ulimit -n)", err)
		default:
			return fmt.Errorf("hpong: accept: %w", err)
		}
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		_ = rxstamp.Enable(fd)
		if err := unix.EpollCtl(s.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
			unix.Close(fd)
			return fmt.Errorf("hpong: epoll: %w", err)
		}
		var c *hconn
		if n := len(s.free); n > 0 {
			c, s.free = s.free[n-1], s.free[:n-1]
		} else {
			c = &hconn{in: make([]byte, 0, 4096), out: make([]byte, 0, 4096)}
		}
		c.fd = fd
		for fd >= len(s.conns) {
			s.conns = append(s.conns, nil)
		}
		s.conns[fd] = c
		s.stats.conns++
	}
}

// ready handles c's event: room to write, or something to read.
func (s *hpong) ready(c *hconn, events uint32) {
	if c.writing {
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			s.flush(c)
		}
		return
	}
	s.read(c)
}

// read takes what c's socket holds, answers every request it completes
// and writes the answers.
func (s *hpong) read(c *hconn) {
	if len(c.in) == cap(c.in) {
		if cap(c.in) >= maxHead+maxBody+4 { // parseRequest refuses before this
			s.drop(c)
			return
		}
		c.in = slices.Grow(c.in, cap(c.in))
	}
	buf := c.in[len(c.in):cap(c.in)]
	if c.draining {
		buf = c.in[:cap(c.in)] // thrown away
	}
	n, rx, err := rxstamp.Recv(c.fd, buf, s.oob)
	if err == unix.EAGAIN || err == unix.EINTR {
		return
	}
	if err != nil || n == 0 { // gone, mid-request or not: nothing to answer
		s.drop(c)
		return
	}
	if c.draining {
		return
	}
	now := time.Now().UnixNano()
	c.in = c.in[:len(c.in)+n]
	c.segs = append(c.segs, segment{end: len(c.in), rx: rx})
	s.answer(c, now)
	s.flush(c)
}

// answer answers every whole request in c.in, read at now, and keeps
// what is left of the next.
func (s *hpong) answer(c *hconn, now int64) {
	off := 0
	for !c.closing && off < len(c.in) {
		r, complete := parseRequest(c.in[off:])
		if !complete {
			break
		}
		s.respond(c, r, now, c.rxAt(off))
		off += r.end
	}
	if c.closing || off == len(c.in) {
		c.in, c.segs = c.in[:0], c.segs[:0]
		return
	}
	// The next request's first bytes move to the front, their reads
	// with them.
	n := copy(c.in, c.in[off:])
	c.in = c.in[:n]
	k := 0
	for _, sg := range c.segs {
		if sg.end > off {
			c.segs[k] = segment{end: sg.end - off, rx: sg.rx}
			k++
		}
	}
	c.segs = c.segs[:k]
}

// rxAt is the receive stamp of the read that brought c.in[off] (0: none).
func (c *hconn) rxAt(off int) int64 {
	for _, sg := range c.segs {
		if off < sg.end {
			return sg.rx
		}
	}
	return 0
}

// respond appends r's answer to c.out and logs its arrival, as the slow
// server's handler does: only the POSTs to /mcp it read a message from.
func (s *hpong) respond(c *hconn, r request, now, rx int64) {
	date := s.clock.date(now)
	s.stats.requests++
	switch {
	case r.status != 0:
		c.out = appendText(c.out, r.status, "", date, r.why, true, false)
	case string(r.path) != "/mcp":
		c.out = appendText(c.out, 404, "", date, notFound, r.close, string(r.method) == "HEAD")
	case string(r.method) != "POST":
		c.out = appendText(c.out, 405, allowPost, date, postOnly, r.close, string(r.method) == "HEAD")
	default:
		var a bodyAnswer
		s.body, a = answerBody(s.body[:0], r.body)
		extra := jsonType
		if a.status == 202 {
			extra = ""
		}
		c.out = appendHead(c.out, a.status, extra, date, len(s.body), r.close)
		c.out = append(c.out, s.body...)
		s.logArrival(now, rx, a.msg)
	}
	c.answered = append(c.answered, now)
	c.closing = r.close
}

// logArrival appends m's line to the log, in the slow server's format.
func (s *hpong) logArrival(now, rx int64, m slowmcp.Message) {
	var at time.Time
	if rx != 0 {
		at = time.Unix(0, rx)
	}
	s.log = slowmcp.AppendArrival(s.log, time.Unix(0, now), at, m)
	if m.Kind == slowmcp.Request && m.Method == toolsCall && !bytes.HasPrefix(m.ID, []byte(warmPrefix)) {
		s.calls++
	}
}

// flush writes c.out; what the socket has no room for waits for
// EPOLLOUT, c's reading paused. A closing connection is shut once
// written.
func (s *hpong) flush(c *hconn) {
	for len(c.out) > 0 {
		n, err := unix.Write(c.fd, c.out)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			if !c.writing {
				c.writing = true
				s.watch(c, unix.EPOLLOUT)
			}
			return
		}
		if err != nil {
			s.drop(c)
			return
		}
		c.out = c.out[:copy(c.out, c.out[n:])]
	}
	if len(c.answered) > 0 {
		now := time.Now().UnixNano()
		for _, at := range c.answered {
			s.stats.written = append(s.stats.written, time.Duration(now-at))
		}
		c.answered = c.answered[:0]
	}
	if c.writing {
		c.writing = false
		s.watch(c, unix.EPOLLIN)
	}
	if c.closing && !c.draining {
		// Shut, then read until the client closes: a close with its
		// bytes unread would reset the connection, and the answer with it.
		_ = unix.Shutdown(c.fd, unix.SHUT_WR)
		c.draining = true
	}
}

func (s *hpong) watch(c *hconn, events uint32) {
	if err := unix.EpollCtl(s.ep, unix.EPOLL_CTL_MOD, c.fd, &unix.EpollEvent{Events: events, Fd: int32(c.fd)}); err != nil {
		s.drop(c)
	}
}

// drop closes c and keeps its buffers for the next connection.
func (s *hpong) drop(c *hconn) {
	_ = unix.EpollCtl(s.ep, unix.EPOLL_CTL_DEL, c.fd, nil)
	unix.Close(c.fd)
	s.conns[c.fd] = nil
	*c = hconn{in: c.in[:0], segs: c.segs[:0], out: c.out[:0], answered: c.answered[:0]}
	s.free = append(s.free, c)
}

// closeAll closes every connection, the listener and hpong's own
// descriptors.
func (s *hpong) closeAll() {
	for _, c := range s.conns {
		if c != nil {
			s.drop(c)
		}
	}
	unix.Close(s.ln)
	unix.Close(s.ep)
	s.mu.Lock()
	unix.Close(s.wake)
	s.wake = -1
	s.mu.Unlock()
}
