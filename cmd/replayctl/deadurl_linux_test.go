//go:build linux

package main

import (
	"fmt"
	"syscall"
	"testing"
)

// deadURL is the URL of a loopback port nothing listens on: an upstream
// that refuses every connection. The port is held for the test by a
// socket bound to it that never listens (connections to it are refused)
// and has no SO_REUSEADDR, so no other process can take the port and
// answer in its place, as one did when the port was a listener's just
// closed (a parallel test's record --listen 127.0.0.1:0 got it and
// answered 502s).
func deadURL(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", sa.(*syscall.SockaddrInet4).Port)
}
