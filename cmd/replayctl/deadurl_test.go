package main

import (
	"errors"
	"net"
	"net/url"
	"syscall"
	"testing"
)

// TestDeadURLRefusesAndIsHeld: deadURL's port refuses connections, and
// no listener can take it while the test runs.
func TestDeadURLRefusesAndIsHeld(t *testing.T) {
	u, err := url.Parse(deadURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", u.Host); err == nil {
		c.Close()
		t.Fatalf("dial %s: connected, want refused", u.Host)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", u.Host, err)
	}
	if l, err := net.Listen("tcp", u.Host); err == nil {
		l.Close()
		t.Fatalf("listen %s: a listener took the dead port", u.Host)
	}
}
