//go:build !linux

package transport

import (
	"io"
	"net"
)

// rawIO is nc itself for reading and writing (see rawio_linux.go).
func rawIO(nc net.Conn) (io.Reader, io.Writer) { return nc, nc }
