package transport

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"syscall"
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
	mediaType  string        // the body's, from Content-Type: how Error shows it
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.URL, e.Status)
	if e.Body != "" {
		s += ": " + shownBody(e.mediaType, e.Body)
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

// requestError is the error of an HTTP request that got no answer: it
// matches ErrTarget and the error of net/http's Client.Do (a *url.Error),
// and says the method and URL once (the *url.Error says them again),
// with what to check when nothing listens there or the host name does
// not resolve.
type requestError struct {
	method, url string
	err         error
}

// requestFailed is the error of the request method u that client.Do
// failed with err.
func requestFailed(method, u string, err error) error {
	return &requestError{method: method, url: u, err: err}
}

func (e *requestError) Error() string {
	cause := e.err
	if ue, ok := errors.AsType[*url.Error](cause); ok {
		cause = ue.Err
	}
	s := fmt.Sprintf("%s: %s %s: %v", ErrTarget, e.method, e.url, cause)
	if errors.Is(cause, syscall.ECONNREFUSED) {
		s += ": is the server running? Nothing listens at that address and port"
	} else if dns, ok := errors.AsType[*net.DNSError](cause); ok {
		if dns.IsNotFound {
			s += ": check the host name in the URL: DNS knows no such name"
		} else {
			s += ": check the host name and DNS: the name could not be looked up"
		}
	}
	return s
}

func (e *requestError) Unwrap() []error { return []error{ErrTarget, e.err} }

// maxErrorBody is the most of a failed answer's body an error shows.
const maxErrorBody = 200

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// shownBody is how an error shows the start of a failed answer's body
// (media is its media type, "text/html"): a web page by its title, as its
// markup fills the screen and says nothing of MCP; anything else with its
// runs of white space folded, cut to maxErrorBody bytes.
func shownBody(media, body string) string {
	text := strings.Join(strings.Fields(body), " ")
	lower := strings.ToLower(text)
	if media == "text/html" || strings.HasPrefix(lower, "<!doctype html") || strings.HasPrefix(lower, "<html") {
		page := "a web page, not MCP"
		if m := htmlTitle.FindStringSubmatch(text); m != nil && strings.TrimSpace(m[1]) != "" {
			page = fmt.Sprintf("a web page (%q), not MCP", clip([]byte(strings.TrimSpace(m[1])), 80))
		}
		return page + ": is this URL the MCP endpoint (often …/mcp)?"
	}
	return clip([]byte(text), maxErrorBody)
}
