package transport

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// nxResolver is a Go resolver whose DNS server is in the process: it
// answers every query NXDOMAIN ("no such host"), so that a test sees the
// error a name that does not resolve gives, and no query leaves the
// machine. It serves over net.Pipe, which the resolver frames as DNS over
// TCP (a two-byte length before each message).
// asked counts the connections it was dialed.
func nxResolver(asked *atomic.Int64) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		asked.Add(1)
		client, server := net.Pipe()
		go answerNX(server)
		return client, nil
	}}
}

// answerNX answers the queries read from c with NXDOMAIN until c is
// closed: the query's header and question, with QR, RA and RCODE 3 set
// and no answer.
func answerNX(c net.Conn) {
	defer c.Close()
	for {
		var size [2]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		q := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(c, q); err != nil || len(q) < 12 {
			return
		}
		q[2] |= 0x80                   // QR: a response
		q[3] = 0x80 | 0x03             // RA, RCODE 3: NXDOMAIN
		clear(q[6:12])                 // no answer, authority or additional records
		q = q[:12+questionLen(q[12:])] // the question, not the query's OPT record
		out := binary.BigEndian.AppendUint16(nil, uint16(len(q)))
		if _, err := c.Write(append(out, q...)); err != nil {
			return
		}
	}
}

// questionLen is the length of the one question at the start of b: its
// name's labels, the root label, type and class.
func questionLen(b []byte) int {
	n := 0
	for n < len(b) && b[n] != 0 {
		n += int(b[n]) + 1
	}
	return min(n+1+4, len(b))
}

// TestRequestNoSuchHost: a target whose host name does not resolve says
// to check the host name, as a refused connection asks whether the
// server runs; it was a bare "lookup …: no such host". The name is under
// .invalid (RFC 6761: it never resolves) and is looked up by an
// in-process DNS server, for both posters.
func TestRequestNoSuchHost(t *testing.T) {
	var asked atomic.Int64
	dialer := &net.Dialer{Timeout: 10 * time.Second, Resolver: nxResolver(&asked)}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	for _, poster := range []Poster{PosterLean, PosterStd} {
		t.Run(string(poster), func(t *testing.T) {
			conn, err := HTTP{URL: "http://nosuchhost.invalid/mcp", Client: client, Poster: poster}.Dial(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			err = conn.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if err == nil {
				for range conn.Incoming() {
				}
				err = conn.Err()
			}
			var dns *net.DNSError
			if !errors.As(err, &dns) || !dns.IsNotFound || !errors.Is(err, ErrTarget) {
				t.Fatalf("got %v; want a *net.DNSError, not found, matching ErrTarget", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "no such host") || !strings.Contains(msg, "check the host name") || strings.Contains(msg, "is the server running?") {
				t.Errorf("got %q; want \"no such host\" and \"check the host name\"", msg)
			}
			if asked.Load() == 0 {
				t.Error("the in-process DNS server was not asked")
			}
		})
	}
}

// TestRequestLookupFailed: a lookup that failed for another reason than
// "no such host" (the DNS server did not answer) says to check DNS too.
func TestRequestLookupFailed(t *testing.T) {
	cause := &url.Error{Op: "Post", URL: "http://mcp.example/mcp", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "server misbehaving", Name: "mcp.example", Server: "127.0.0.53:53", IsTemporary: true}}}
	msg := requestFailed("POST", "http://mcp.example/mcp", cause).Error()
	if !strings.Contains(msg, "server misbehaving") || !strings.Contains(msg, "check the host name and DNS") {
		t.Errorf("got %q; want the cause and \"check the host name and DNS\"", msg)
	}
}
