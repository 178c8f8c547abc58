package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/replayctl/replayctl/mcp"
)

// ErrRedirect is wrapped by the error of a request that a redirect to
// another origin ended (see Redirects), and of a legacy HTTP+SSE session
// whose server named a message endpoint on another origin.
var ErrRedirect = errors.New("redirect to another origin")

// maxRedirects is how many redirects a request follows, as net/http's
// default policy.
const maxRedirects = 10

// Redirects is the redirect policy of NewClient, as an
// http.Client.CheckRedirect function. A redirect within the origin of the
// first request (same scheme, host and port) is followed, with every
// header. One to another origin fails the request with an error wrapping
// ErrRedirect, unless follow is true; then it is followed, but only the
// protocol's own headers go there (ForOtherOrigin): never the user's
// (X-Api-Key, Authorization), a cookie, the session id or a Referer.
func Redirects(follow bool) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		first := via[0].URL
		if SameOrigin(first, req.URL) {
			return nil
		}
		if !follow {
			return fmt.Errorf("%w not followed: %s redirected to %s, and your headers must not go there: point the target at the new URL, or follow redirects (--follow-redirects), which sends none of your headers to another origin",
				ErrRedirect, redacted(first), redacted(req.URL))
		}
		ForOtherOrigin(req.Header)
		return nil
	}
}

// redacted is u without its user information and query, for messages.
func redacted(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.Fragment = nil, "", ""
	return v.String()
}

// SameOrigin reports whether a and b have the same origin: scheme, host
// and port (a default port written or not).
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// otherOriginHeaders are the headers a request may carry to another
// origin than the one the user named: the protocol's own.
var otherOriginHeaders = map[string]bool{
	"Accept":              true,
	"Accept-Encoding":     true,
	"Content-Type":        true,
	"User-Agent":          true,
	HeaderProtocolVersion: true,
	HeaderLastEventID:     true,
	mcp.HeaderMethod:      true,
	mcp.HeaderName:        true,
}

// ForOtherOrigin removes from h every header but the protocol's own
// (Accept, Content-Type, Last-Event-ID, Mcp-Protocol-Version, Mcp-Method,
// Mcp-Name, Mcp-Param-*), before a request goes to another origin than
// the one the user named.
func ForOtherOrigin(h http.Header) {
	for k := range h {
		ck := http.CanonicalHeaderKey(k)
		if !otherOriginHeaders[ck] && !strings.HasPrefix(ck, mcp.HeaderParamPrefix) {
			delete(h, k)
		}
	}
}
