package replay

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// HTTP replays against a Streamable HTTP endpoint, e.g.
// "http://127.0.0.1:3000/mcp"; an endpoint that speaks the 2024-11-05
// HTTP+SSE transport is detected (or see WithLegacySSE).
func HTTP(endpoint string) Target { return Target{impl: httpTarget{url: endpoint}} }

// httpTarget is HTTP: transport.Auto, or transport.LegacySSE.
type httpTarget struct {
	url       string
	header    http.Header
	legacySSE bool
	follow    bool // follow redirects to another origin
	poster    transport.Poster
	spare     int // see Target.WithHTTPSpare; -1: none
}

func (h httpTarget) String() string { return tape.MaskURL(h.url) } // its credentials are no one's to see

func (h httpTarget) Dialer(env DialEnv) (transport.Dialer, error) {
	if err := checkURL(h.url); err != nil {
		return nil, &OptionError{Option: "HTTP", Value: h.url, Err: err}
	}
	if err := checkHeader(h.header); err != nil {
		return nil, err
	}
	var copts []transport.ClientOption
	if h.follow {
		copts = append(copts, transport.FollowRedirects())
	}
	client := transport.NewClient(env.MaxInflight, copts...)
	if h.legacySSE {
		return transport.LegacySSE{URL: h.url, Header: h.header, Client: client, Logger: env.Logger, FollowRedirects: h.follow, MaxMessage: env.MaxMessage}, nil
	}
	return &transport.Auto{URL: h.url, Header: h.header, Client: client, Logger: env.Logger, FollowRedirects: h.follow, MaxMessage: env.MaxMessage, Poster: h.poster, Spare: h.spareConns()}, nil
}

// spareConns is transport.HTTP.Spare: DefaultHTTPSpare unless set.
func (h httpTarget) spareConns() int {
	switch {
	case h.spare == 0:
		return DefaultHTTPSpare
	case h.spare < 0:
		return 0
	}
	return h.spare
}

func (h httpTarget) tapeHeader(t tape.Header) tape.Header {
	t.Transport, t.Server = "streamable-http", &tape.Server{URL: tape.MaskURL(h.url)}
	if h.legacySSE {
		t.Transport = "http+sse"
	}
	return t
}

// secrets are the values of the target that no output may show: those
// its headers take from the environment (${NAME}), the values of its
// credential headers (Authorization, X-Api-Key, …: tape.Sensitive) and
// their credentials after the scheme ("Bearer <token>"), and the password
// and credential query parameters of its URL.
func (h httpTarget) secrets() []string {
	out := headerSecrets(h.header)
	if u, err := url.Parse(h.url); err == nil {
		if p, ok := u.User.Password(); ok {
			out = appendCredential(out, p)
		}
		for k, vs := range u.Query() {
			if tape.CredentialParam(k) {
				for _, v := range vs {
					out = appendCredential(out, v)
				}
			}
		}
	}
	return out
}

// headerSecrets are the secrets of the headers of an HTTP or Handler
// target (see httpTarget.secrets).
func headerSecrets(header http.Header) []string {
	out, _ := transport.HeaderSecrets(header) // a bad header fails New before
	for k, vs := range header {
		if !tape.Sensitive(k) {
			continue
		}
		for _, v := range vs {
			x, err := transport.ExpandHeader(v)
			if err != nil {
				continue
			}
			x = strings.TrimSpace(x)
			out = appendCredential(out, x)
			if _, cred, ok := strings.Cut(x, " "); ok {
				out = appendCredential(out, strings.TrimSpace(cred))
			}
		}
	}
	return out
}

// minCredential is the shortest value a credential header or URL
// parameter must have to be taken as a secret without being marked one
// (${NAME}): hiding "1" or "true" everywhere would wreck every output.
const minCredential = 4

func appendCredential(secrets []string, v string) []string {
	if len(v) < minCredential {
		return secrets
	}
	return append(secrets, v)
}

// suggestURL is what a URL without a scheme probably meant: raw with
// http:// in front when that makes a URL with a plausible host, else an
// example.
func suggestURL(raw string) string {
	u, err := url.Parse("http://" + raw)
	if err == nil && !strings.HasPrefix(raw, "http") && u.Hostname() != "" && !strings.ContainsAny(raw, " \t") && !strings.HasPrefix(raw, ":") {
		return u.String()
	}
	return "http://127.0.0.1:3000/mcp"
}

// checkHeader refuses a header WithHeader gave that cannot be sent.
func checkHeader(header http.Header) error {
	for k, vs := range header {
		if strings.TrimSpace(k) == "" {
			return &OptionError{Option: "WithHeader", Value: k, Err: fmt.Errorf("empty header name")}
		}
		for _, v := range vs {
			if _, err := transport.ExpandHeader(v); err != nil {
				return &OptionError{Option: "WithHeader", Value: k, Err: err}
			}
		}
	}
	return nil
}

// checkURL refuses an endpoint that cannot be an HTTP URL, before
// anything is replayed.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case !strings.Contains(raw, "://"):
		return fmt.Errorf("want a URL like %s", suggestURL(raw))
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("want an http:// or https:// URL")
	case u.Hostname() == "":
		return fmt.Errorf("the URL has no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %s is not a port number", p)
		}
	}
	return nil
}
