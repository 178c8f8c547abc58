//go:build linux

package main

// The machine's floor for the paced schedule (issue 24's 10x tail): a
// bare ping-pong over loopback TCP with the pacing of bench-tail.sh's
// calls and none of HTTP, JSON or Go's network poller. pong answers
// each fixed-size request at once and logs when it came, as the slow
// server's -arrivals does; ping sends request i at its due time (or at
// the answer before it, when that comes later: causal order, as
// replayctl replays the tape) and writes a report shaped as replayctl's
// (its timeline's due, sent and answered times), so that stats and
// split read both alike. Both use blocking system calls on one locked
// thread: a sleep the kernel times to the microsecond (clock_nanosleep),
// a read that blocks. What is late here is the platform's: the wake-up
// of an idle processor, the kernel's network work, the hypervisor.
//
//	tailbench pong -addr 127.0.0.1:18942 -arrivals floor.log [-warm 2]
//	tailbench ping -addr 127.0.0.1:18942 -calls 200 -gap 200us -report floor.json [-spin 50us]
//	tailbench ping -http -addr 127.0.0.1:18941 -report bare.json   (against the slow server)
//
// ping -http is the same bare client against the slow server, over
// HTTP: beside replayctl against that server in the same minutes, it
// parts the server's share of a late call from the client's.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/replayctl/replayctl/internal/testserver/rxstamp"
)

// The sizes of a request and its answer: about those of bench-tail.sh's
// HTTP calls (a POST of ≈ 250 bytes, an answer of ≈ 150).
const (
	pingSize = 256
	pongSize = 160
)

// pongCmd accepts one connection, answers each request on it at once and,
// when the client closes it, writes the arrival of each request to the
// log: "<unix ns> tools/call <n>" a line, as the slow server's -arrivals.
// With -warm N it first serves N connections of warm-up (tailbench warm),
// answered as any but not logged: the measured connection is the N+1th.
func pongCmd(args []string) error {
	fs := flag.NewFlagSet("pong", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18942", "the `host:port` to listen on (IPv4)")
	path := fs.String("arrivals", "", "the arrival log to write")
	warm := fs.Int("warm", 0, "serve `N` connections of warm-up, not logged, before the measured one")
	_ = fs.Parse(args)
	if *path == "" || *warm < 0 {
		return fmt.Errorf("pong: want -arrivals FILE and -warm >= 0")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The kernel's receive stamps on now and until pong exits, so that
	// every request is stamped (rxstamp.On).
	off, err := rxstamp.On()
	if err != nil {
		return fmt.Errorf("pong: %w", err)
	}
	defer off()
	ln, _, err := pongListen(*addr)
	if err != nil {
		return err
	}
	defer unix.Close(ln)
	for i := range *warm {
		if _, err := pongConn(ln); err != nil {
			return fmt.Errorf("pong: warm-up connection %d: %w", i+1, err)
		}
	}
	return pongServe(ln, *path)
}

// pongListen listens on addr (port 0: one the kernel picks) with a
// blocking socket; it returns the socket and the port.
func pongListen(addr string) (int, int, error) {
	sa, err := sockaddr(addr)
	if err != nil {
		return -1, 0, fmt.Errorf("pong: -addr: %w", err)
	}
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, fmt.Errorf("pong: %w", err)
	}
	_ = unix.SetsockoptInt(ln, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	if err := rxstamp.Enable(ln); err != nil { // inherited by what it accepts
		unix.Close(ln)
		return -1, 0, fmt.Errorf("pong: SO_TIMESTAMPNS: %w", err)
	}
	if err := unix.Bind(ln, sa); err != nil {
		unix.Close(ln)
		return -1, 0, fmt.Errorf("pong: listen on %s: %w", addr, err)
	}
	if err := unix.Listen(ln, 1); err != nil {
		unix.Close(ln)
		return -1, 0, fmt.Errorf("pong: listen on %s: %w", addr, err)
	}
	got, err := unix.Getsockname(ln)
	if err != nil {
		unix.Close(ln)
		return -1, 0, fmt.Errorf("pong: %w", err)
	}
	return ln, got.(*unix.SockaddrInet4).Port, nil
}

// pongServe accepts one connection on ln, answers it (pongCmd) and
// writes its arrivals to path.
func pongServe(ln int, path string) error {
	at, err := pongConn(ln)
	if err != nil {
		return fmt.Errorf("pong: %w", err)
	}
	var b strings.Builder
	for i, a := range at {
		fmt.Fprintf(&b, "%d tools/call %d", a.read, i+1)
		if a.rx != 0 {
			fmt.Fprintf(&b, " rx=%d", a.rx)
		}
		b.WriteByte('\n')
	}
	return writeFile(path, b.String())
}

// arrival is when pong read a request (unix ns) and when the kernel
// received its first bytes (rx; 0: no stamp), as the slow server's -rx
// logs both.
type arrival struct{ read, rx int64 }

// pongConn accepts one connection on ln and answers each request on it
// at once until the client closes it; it returns when each came.
func pongConn(ln int) ([]arrival, error) {
	fd, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("accept: %w", err)
	}
	defer unix.Close(fd)
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	stamped := rxstamp.Enable(fd) == nil
	var in [pingSize]byte
	var out [pongSize]byte
	oob := make([]byte, rxstamp.OOBSize())
	var at []arrival
	for {
		rx, err := readFullRx(fd, in[:], oob, stamped)
		if err != nil {
			if errors.Is(err, errEOF) {
				return at, nil
			}
			return nil, fmt.Errorf("read request %d: %w", len(at)+1, err)
		}
		at = append(at, arrival{read: time.Now().UnixNano(), rx: rx})
		if err := writeAll(fd, out[:]); err != nil {
			return nil, fmt.Errorf("answer request %d: %w", len(at), err)
		}
	}
}

// pingReport is the part of replayctl's report that split reads.
type pingReport struct {
	Summary struct {
		StartedAt time.Time `json:"started_at"`
	} `json:"summary"`
	Timeline []pingCall `json:"timeline"`
}

type pingCall struct {
	Method     string  `json:"method"`
	DueMS      float64 `json:"due_ms"`
	SentMS     float64 `json:"sent_ms"`
	AnsweredMS float64 `json:"answered_ms"`
}

// pingCmd connects to pong (trying again while it does not listen yet,
// for up to -wait) and makes -calls requests -gap apart, each sent at
// its due time or at the answer before it, whichever is later; it
// writes each call's due, sent and answered times as a report.
func pingCmd(args []string) error {
	fs := flag.NewFlagSet("ping", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18942", "pong's `host:port` (IPv4)")
	n := fs.Int("calls", 200, "requests")
	gap := fs.Duration("gap", 200*time.Microsecond, "time between two due times")
	spin := fs.Duration("spin", 0, "sleep until this long before each due time, then read the clock in a loop")
	wait := fs.Duration("wait", 5*time.Second, "how long to try connecting while pong does not listen")
	path := fs.String("report", "", "the report to write")
	overHTTP := fs.Bool("http", false, "post each call as an HTTP request to /mcp (the slow server's tools/call, as the other clients send it) and read its answer, instead of pong's bytes")
	_ = fs.Parse(args)
	if *path == "" || *n < 1 || *gap <= 0 || *spin < 0 {
		return fmt.Errorf("ping: want -report FILE, -calls >= 1, -gap > 0, -spin >= 0")
	}
	sa, err := sockaddr(*addr)
	if err != nil {
		return fmt.Errorf("ping: -addr: %w", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd, err := dialRetry(sa, *addr, *wait)
	if err != nil {
		return err
	}
	var ex exchanger = &rawExchange{fd: fd}
	if *overHTTP {
		ex = &httpExchange{fd: fd, host: *addr}
	}
	r, err := pingCalls(ex, *n, *gap, *spin)
	// The close tells pong to write its log; the report is ping's.
	cerr := unix.Close(fd)
	if err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("ping: close: %w", cerr)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writeFile(*path, string(b))
}

// exchanger makes call i: it writes the request and reads its answer.
type exchanger interface {
	send(i int) error
	answer(i int) error
}

// pingCalls makes the n calls by ex, the first due 1 ms from now.
func pingCalls(ex exchanger, n int, gap, spin time.Duration) (*pingReport, error) {
	r := &pingReport{Timeline: make([]pingCall, 0, n)}
	start := time.Now()
	r.Summary.StartedAt = start
	first := start.Add(time.Millisecond)
	since := func(t time.Time) float64 { return ms(t.Sub(start)) }
	for i := range n {
		due := first.Add(time.Duration(i) * gap)
		if err := sleepUntil(due, spin); err != nil {
			return nil, fmt.Errorf("ping: sleep before call %d: %w", i+1, err)
		}
		sent := time.Now()
		if err := ex.send(i + 1); err != nil {
			return nil, fmt.Errorf("ping: send call %d: %w", i+1, err)
		}
		if err := ex.answer(i + 1); err != nil {
			return nil, fmt.Errorf("ping: answer of call %d: %w", i+1, err)
		}
		answered := time.Now()
		r.Timeline = append(r.Timeline, pingCall{Method: "tools/call", DueMS: since(due), SentMS: since(sent), AnsweredMS: since(answered)})
	}
	return r, nil
}

// rawExchange is pong's: pingSize bytes up, pongSize back.
type rawExchange struct {
	fd  int
	out [pingSize]byte
	in  [pongSize]byte
}

func (x *rawExchange) send(int) error   { return writeAll(x.fd, x.out[:]) }
func (x *rawExchange) answer(int) error { return readFull(x.fd, x.in[:]) }

// httpExchange posts the slow server's tools/call i over HTTP/1.1
// keep-alive, as vegeta's target does, and reads the answer's head and
// its Content-Length of body. Built before the clock is read for the
// send: only the write is timed.
type httpExchange struct {
	fd   int
	host string
	body func(i int) string // call i's body; nil: call's
	req  []byte
	buf  []byte
}

func (x *httpExchange) send(i int) error {
	var body string
	if x.body != nil {
		body = x.body(i)
	} else {
		body = call(i)
	}
	x.req = fmt.Appendf(x.req[:0], "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", x.host, len(body), body)
	return writeAll(x.fd, x.req)
}

func (x *httpExchange) answer(int) error {
	if x.buf == nil {
		x.buf = make([]byte, 0, 4096)
	}
	b := x.buf[:0]
	want := -1 // the answer's length, once its head is read
	for want < 0 || len(b) < want {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Read(x.fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("closed after %d bytes of the answer", len(b))
		}
		b = b[:len(b)+n]
		if want < 0 {
			if want, err = answerLength(b); err != nil {
				return err
			}
		}
	}
	x.buf = b
	return nil
}

// answerLength is the length of the HTTP answer b begins, head and
// body, once b holds its head; -1 before.
func answerLength(b []byte) (int, error) {
	s := string(b)
	end := strings.Index(s, "\r\n\r\n")
	if end < 0 {
		return -1, nil
	}
	head := s[:end]
	if !strings.HasPrefix(head, "HTTP/1.1 200 ") {
		return 0, fmt.Errorf("answer %q: want HTTP/1.1 200", head[:strings.IndexByte(head+"\r", '\r')])
	}
	for _, line := range strings.Split(head, "\r\n")[1:] {
		k, v, _ := strings.Cut(line, ":")
		if strings.EqualFold(k, "Content-Length") {
			cl, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || cl < 0 {
				return 0, fmt.Errorf("answer's Content-Length %q: want a length", v)
			}
			return end + 4 + cl, nil
		}
	}
	return 0, fmt.Errorf("answer %q has no Content-Length (a stream?): want a JSON answer", head)
}

// sleepUntil returns at t: a sleep the kernel times until spin before
// it, then a loop reading the clock. Wall-clock times: the clock the
// arrival log and the report share.
func sleepUntil(t time.Time, spin time.Duration) error {
	if wake := t.Add(-spin); time.Until(wake) > 0 {
		ts := unix.NsecToTimespec(wake.UnixNano())
		for {
			err := unix.ClockNanosleep(unix.CLOCK_REALTIME, unix.TIMER_ABSTIME, &ts, nil)
			if err == nil {
				break
			}
			if err != unix.EINTR {
				return err
			}
		}
	}
	for time.Now().Before(t) {
	}
	return nil
}

// dialRetry connects a blocking socket to sa, trying again while nothing
// listens there, for up to wait.
func dialRetry(sa *unix.SockaddrInet4, addr string, wait time.Duration) (int, error) {
	end := time.Now().Add(wait)
	for {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return -1, fmt.Errorf("ping: %w", err)
		}
		err = unix.Connect(fd, sa)
		if err == nil {
			_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
			return fd, nil
		}
		unix.Close(fd)
		if err != unix.ECONNREFUSED || time.Now().After(end) {
			return -1, fmt.Errorf("ping: connect to %s: %w (is pong listening?)", addr, err)
		}
		time.Sleep(10 * time.Millisecond) // pong is starting: not a test's wait
	}
}

func sockaddr(addr string) (*unix.SockaddrInet4, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() {
		return nil, fmt.Errorf("%q: want an IPv4 host:port", addr)
	}
	return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}, nil
}

var errEOF = errors.New("closed before a request began")

// readFull reads len(p) bytes from the blocking fd; errEOF when it ended
// before the first.
func readFull(fd int, p []byte) error {
	for got := 0; got < len(p); {
		n, err := unix.Read(fd, p[got:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0 && got == 0:
			return errEOF
		case n == 0:
			return fmt.Errorf("closed after %d of %d bytes", got, len(p))
		}
		got += n
	}
	return nil
}

// readFullRx is readFull, through recvmsg when stamped: it returns the
// kernel's receive time of the first bytes read (0 when not stamped).
func readFullRx(fd int, p, oob []byte, stamped bool) (int64, error) {
	if !stamped {
		return 0, readFull(fd, p)
	}
	var first int64
	for got := 0; got < len(p); {
		n, rx, err := rxstamp.Recv(fd, p[got:], oob)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && got == 0:
			return 0, errEOF
		case n == 0:
			return 0, fmt.Errorf("closed after %d of %d bytes", got, len(p))
		}
		if got == 0 {
			first = rx
		}
		got += n
	}
	return first, nil
}

func writeAll(fd int, p []byte) error {
	for len(p) > 0 {
		n, err := unix.Write(fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}
