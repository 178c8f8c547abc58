//go:build linux

package main

// The server's warm-up before a measured run (bench-tail.sh, WARM=1, the
// default): a fresh server's first calls run its code for the first time
// (page faults, the first allocation of its buffers, a new goroutine's
// stack growing), and a client that met them would be measured for the
// server's start, not its own schedule. warm makes a few calls to the
// fresh server before the client under test starts, the same for every
// client; their arrivals are kept out of the deviations by their id
// (warmID): stats and split skip them.
//
//	tailbench warm -addr 127.0.0.1:18941 -http   (the slow server: tools/call with the id "warm-K")
//	tailbench warm -addr 127.0.0.1:18942         (the floor's pong, started with -warm CONNS)

import (
	"flag"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// warmCmd makes -calls calls on each of -conns connections, one after
// the other, each closed before the next is dialled (pong serves one
// at a time), and returns when the last answer is read.
func warmCmd(args []string) error {
	fs := flag.NewFlagSet("warm", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18941", "the server's `host:port` (IPv4)")
	conns := fs.Int("conns", 2, "connections, one after the other")
	n := fs.Int("calls", 3, "calls on each connection")
	overHTTP := fs.Bool("http", false, "the slow server's tools/call over HTTP (id \"warm-K\"), not pong's bytes")
	wait := fs.Duration("wait", 5*time.Second, "how long to try connecting while the server does not listen")
	_ = fs.Parse(args)
	if *conns < 1 || *n < 1 {
		return fmt.Errorf("warm: want -conns >= 1 and -calls >= 1")
	}
	sa, err := sockaddr(*addr)
	if err != nil {
		return fmt.Errorf("warm: -addr: %w", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	k := 0
	for c := range *conns {
		fd, err := dialRetry(sa, *addr, *wait)
		if err != nil {
			return err
		}
		var ex exchanger = &rawExchange{fd: fd}
		if *overHTTP {
			ex = &httpExchange{fd: fd, host: *addr, body: warmCall}
		}
		for range *n {
			k++
			if err = ex.send(k); err == nil {
				err = ex.answer(k)
			}
			if err != nil {
				break
			}
		}
		cerr := unix.Close(fd)
		if err != nil {
			return fmt.Errorf("warm: connection %d, call %d: %w", c+1, k, err)
		}
		if cerr != nil {
			return fmt.Errorf("warm: close: %w", cerr)
		}
	}
	return nil
}
