//go:build !linux

package main

import (
	"net"
	"testing"
)

// deadURL is the URL of a loopback port nothing listens on (one just
// closed): an upstream that refuses every connection. Another process
// may take the port meanwhile (see deadurl_unix_test.go).
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/mcp"
}
