package transport

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrTarget is matched (errors.Is) by every error that means the target
// itself failed: it could not be started or reached, it died, or it sent
// a message longer than the limit (*TooLargeError). The CLI maps it to
// exit status 3.
var ErrTarget = errors.New("transport: target failed")

// ErrClosed is returned by Send after Close, or after the connection ended.
var ErrClosed = errors.New("transport: connection closed")

// ExitError is Err of a stdio connection whose server ended on its own.
type ExitError struct {
	Command []string
	Status  int    // exit status, or -1 when killed by a signal
	Signal  string // the signal that killed it, if any
	Stderr  string // the last few KB of its stderr
	Stdout  string // the last non-JSON lines it printed on stdout, if any
}

func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server %q ", strings.Join(e.Command, " "))
	if e.Signal != "" {
		fmt.Fprintf(&b, "was killed by signal %s", e.Signal)
	} else {
		fmt.Fprintf(&b, "exited with status %d", e.Status)
	}
	switch {
	case e.Stderr != "":
		b.WriteString(": " + e.Stderr)
	case e.Stdout == "":
		b.WriteString(" (nothing on stderr)")
	}
	if e.Stdout != "" {
		fmt.Fprintf(&b, " [non-JSON on stdout: %s]", e.Stdout)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrTarget) true.
func (e *ExitError) Is(target error) bool { return target == ErrTarget }

// HTTPError is returned by Send when the target answered with a 4xx or 5xx
// status. Retry a 429 or 5xx after RetryAfter (0: the server said nothing).
type HTTPError struct {
	Method     string // HTTP method of the failed request
	URL        string
	Status     int
	Body       string        // the start of the answer's body
	RetryAfter time.Duration // from the Retry-After header
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.Status)
	if e.Body != "" {
		s += ": " + e.Body
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// Temporary reports whether retrying may help: 408, 429 and 5xx.
func (e *HTTPError) Temporary() bool {
	switch e.Status {
	case 408, 429, 500, 502, 503, 504:
		return true
	}
	return false
}

// ServeError is Err of a Pipe connection whose Serve returned on its own,
// before Close: the in-process counterpart of a subprocess's exit.
type ServeError struct {
	Name string // the Pipe's Name
	Err  error  // what Serve returned (nil if it returned nil), or its panic
}

func (e *ServeError) Error() string {
	who := fmt.Sprintf("in-process server %q", e.Name)
	if e.Name == "in-process" { // the default name says it already
		who = "the in-process server"
	}
	if e.Err == nil {
		return who + " stopped: Serve returned nil before the connection was closed"
	}
	return fmt.Sprintf("%s stopped: %v", who, e.Err)
}

// Unwrap is the error Serve returned.
func (e *ServeError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrTarget) true.
func (e *ServeError) Is(target error) bool { return target == ErrTarget }

// ErrHandlerPanic is matched (errors.Is) by the error of a request whose
// in-process handler (see Handler) panicked: Send's error when the panic
// came before the answer's headers, the answer body's read error after.
var ErrHandlerPanic = errors.New("transport: in-process handler panicked")
