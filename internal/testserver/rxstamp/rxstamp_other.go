//go:build !linux

package rxstamp

import (
	"errors"
	"net"
)

// Supported says whether this platform stamps reads.
const Supported = false

type reader struct{}

func (reader) read([]byte) (int, int64, error) { return 0, 0, errors.ErrUnsupported }

func newConn(*net.TCPConn) (*Conn, error) { return nil, errors.ErrUnsupported }

// Enable asks the kernel to stamp what fd receives: not here.
func Enable(int) error { return errors.ErrUnsupported }

// Recv is read(2) with a receive time: not here.
func Recv(int, []byte, []byte) (int, int64, error) { return 0, 0, errors.ErrUnsupported }

// OOBSize is the scratch space Recv needs.
func OOBSize() int { return 0 }
