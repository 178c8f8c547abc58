package rxstamp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
)

// On turns the kernel's stamping on and waits until it is: the kernel
// turns it on a moment after the first socket asks (see Listen), so a
// probe goes back and forth over a loopback connection of its own until
// one comes stamped. A server that calls On before it listens (with its
// listener asking too, so that stamping stays on) has every request
// stamped, its first included.
func On() error {
	if !Supported {
		return errors.ErrUnsupported
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("rxstamp: %w", err)
	}
	ln := Listen(l)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		return fmt.Errorf("rxstamp: %w", err)
	}
	defer client.Close()
	server := <-accepted
	if server == nil {
		return fmt.Errorf("rxstamp: the probe's connection was not accepted")
	}
	defer server.Close()
	sc, ok := server.(*Conn)
	if !ok {
		return fmt.Errorf("rxstamp: the kernel refused SO_TIMESTAMPNS")
	}
	return probe(client, sc)
}

// probe sends a byte from client to server until the server's read of
// one is stamped (a bounded number of times).
func probe(client net.Conn, server *Conn) error {
	buf := make([]byte, 1)
	for range 100_000 {
		if _, err := client.Write([]byte{'p'}); err != nil {
			return fmt.Errorf("rxstamp: probe: %w", err)
		}
		if _, err := io.ReadFull(server, buf); err != nil {
			return fmt.Errorf("rxstamp: probe: %w", err)
		}
		if _, ok := server.Take(); ok {
			return nil
		}
		runtime.Gosched()
	}
	return fmt.Errorf("rxstamp: the kernel stamped none of 100,000 probes")
}
