package rxstamp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// On turns the kernel's stamping on, waits until it is, and keeps it on
// until off is called. The kernel turns stamping on a moment after the
// first socket asks, in a worker thread, and off again a moment after
// the last such socket closes: a server whose connections come and go
// (one request each, as curl's) would have the first bytes of a new
// connection unstamped whenever it found stamping off. So On holds a
// stamped loopback connection of its own open until off, after a probe
// went back and forth over it until one came stamped. A server calls On
// before it serves and off when it stops: every request is stamped, its
// first included.
func On() (off func(), err error) {
	if !Supported {
		return nil, errors.ErrUnsupported
	}
	client, server, off, err := loopback()
	if err != nil {
		return nil, err
	}
	sc, ok := server.(*Conn)
	if !ok {
		off()
		return nil, fmt.Errorf("rxstamp: the kernel refused SO_TIMESTAMPNS")
	}
	if err := probe(client, sc); err != nil {
		off()
		return nil, err
	}
	return off, nil
}

// loopback makes a loopback TCP connection, its server's end accepted
// through Listen; closeAll closes both ends and the listener.
func loopback() (client, server net.Conn, closeAll func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("rxstamp: %w", err)
	}
	ln := Listen(l)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept() // nil once ln is closed
		accepted <- c
	}()
	client, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		ln.Close()
		<-accepted
		return nil, nil, nil, fmt.Errorf("rxstamp: %w", err)
	}
	server = <-accepted
	if server == nil {
		client.Close()
		ln.Close()
		return nil, nil, nil, fmt.Errorf("rxstamp: the loopback connection was not accepted")
	}
	return client, server, func() { client.Close(); server.Close(); ln.Close() }, nil
}

// probe sends a byte from client to server until the server's read of
// one is stamped, sleeping a little longer between tries each time: the
// kernel turns stamping on in a worker thread of ordinary priority on
// this processor, which a real-time caller that never slept would keep
// from running. It gives up after about 10 s.
func probe(client net.Conn, server *Conn) error {
	buf := make([]byte, 1)
	pause := 10 * time.Microsecond
	for waited := time.Duration(0); waited < 10*time.Second; waited += pause {
		if _, err := client.Write([]byte{'p'}); err != nil {
			return fmt.Errorf("rxstamp: probe: %w", err)
		}
		if _, err := io.ReadFull(server, buf); err != nil {
			return fmt.Errorf("rxstamp: probe: %w", err)
		}
		if _, ok := server.Take(); ok {
			return nil
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
	return fmt.Errorf("rxstamp: the kernel stamped no probe in 10 s")
}
