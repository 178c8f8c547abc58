package rxstamp

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Supported says whether this platform stamps reads.
const Supported = true

// Enable asks the kernel to stamp what fd receives (SO_TIMESTAMPNS).
func Enable(fd int) error {
	return unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
}

// oobSize holds one SCM_TIMESTAMPNS message.
var oobSize = unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))

// Recv reads into p from fd as read(2) does, and returns the kernel's
// receive time of what it read in unix nanoseconds (0 when the kernel
// gave none). oob is scratch space of OOBSize bytes or more.
func Recv(fd int, p, oob []byte) (n int, rx int64, err error) {
	n, oobn, _, _, err := unix.Recvmsg(fd, p, oob, 0)
	if err != nil || oobn == 0 {
		return n, 0, err
	}
	return n, stamp(oob[:oobn]), nil
}

// OOBSize is the scratch space Recv needs.
func OOBSize() int { return oobSize }

// stamp finds SCM_TIMESTAMPNS in a control message buffer.
func stamp(oob []byte) int64 {
	for len(oob) > 0 {
		h, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return 0
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && len(data) >= int(unsafe.Sizeof(unix.Timespec{})) {
			ts := (*unix.Timespec)(unsafe.Pointer(&data[0]))
			return ts.Nano()
		}
		oob = rest
	}
	return 0
}

// reader reads a connection's socket through Go's poller with recvmsg.
type reader struct {
	raw syscall.RawConn
	oob []byte
}

func newConn(tc *net.TCPConn) (*Conn, error) {
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = Enable(int(fd)) }); err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	return &Conn{TCPConn: tc, rd: reader{raw: raw, oob: make([]byte, oobSize)}}, nil
}

// read is one recvmsg when the socket has data, waiting through the
// poller (and its deadlines) when it has none. Reads on one connection
// do not overlap (net.Conn's contract for a reader), so oob is not shared.
func (r *reader) read(p []byte) (n int, rx int64, err error) {
	if len(p) == 0 {
		return 0, 0, nil
	}
	var rerr error
	err = r.raw.Read(func(fd uintptr) bool {
		n, rx, rerr = Recv(int(fd), p, r.oob)
		return !errors.Is(rerr, unix.EAGAIN)
	})
	if err == nil && rerr != nil {
		err = os.NewSyscallError("recvmsg", rerr)
	}
	if err != nil {
		return 0, 0, err
	}
	if n == 0 {
		return 0, 0, io.EOF
	}
	return n, rx, nil
}
