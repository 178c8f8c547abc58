package main

import (
	"fmt"
	"net"
	"time"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// serveFlags are replayctl serve's flags.
type serveFlags struct {
	listen     string
	strategy   string
	timing     string
	chaos      string
	seed       int64
	strict     bool
	report     string
	origins    []string // --allow-origin
	hosts      []string // --allow-host
	volatile   []string
	repeat     bool
	maxMessage int
	maxLine    int
	idle       time.Duration
	ui         uiFlags

	path string // TAPE
	modeFlags
	stopTimeout time.Duration
	drain       time.Duration // --drain: record's, over stdio with stdin a file
	serveLimits
	// redaction builds the Redactor of --redact-* (record and new).
	redaction func() (*tape.Redactor, error)
}

// beyondLoopbackWarning is the warning for a listener bound to addr that
// other machines can reach (every interface, or an address that is not
// loopback), or "" for a loopback one.
func beyondLoopbackWarning(addr net.Addr) string {
	if transport.IsLoopbackAddr(addr.String()) {
		return ""
	}
	return fmt.Sprintf("warning: listening on %s, beyond loopback: other machines can reach it. "+
		"Requests are answered only for the Host names localhost, 127.0.0.1, [::1], the address they reached and --allow-host NAME, "+
		"and browser pages only from that address or --allow-origin ORIGIN; listen on 127.0.0.1 to keep it to this machine", addr)
}
