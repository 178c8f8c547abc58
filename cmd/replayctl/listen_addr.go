package main

import (
	"errors"
	"net"
	"strconv"
	"syscall"
)

// listenTCP listens on addr, the value of the flag named flag (e.g.
// "--listen"), with errors that say what to write: a port alone (8931) is
// refused, naming 127.0.0.1:8931 (this machine) and :8931 (every
// interface), rather than guessing which was meant; a port another
// program holds says so, and that port 0 picks a free one.
func listenTCP(flag, addr string) (net.Listener, error) {
	if _, err := strconv.ParseUint(addr, 10, 16); err == nil {
		return nil, usageError("%s %s: a port alone; write 127.0.0.1:%s (this machine only) or :%s (every interface)", flag, addr, addr, addr)
	}
	l, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, usageError("%s %s: the port is in use by another program: stop it, or choose another port (port 0 picks a free one)", flag, addr)
	case err != nil:
		return nil, usageError("%s %s: %v (want HOST:PORT, e.g. 127.0.0.1:8931; port 0 picks a free one)", flag, addr, err)
	}
	return l, nil
}
