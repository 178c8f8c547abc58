package replay

import (
	"fmt"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Target is what a replay is sent to, as a value: Mock (the default),
// MockTape, Command, HTTP, Handler, Streams, or Via a Transport of any
// package. The With… methods add to a target of the kind they name;
// given to another kind they make New fail.
type Target struct {
	impl   Transport // nil: Mock
	misuse string    // a With… method given to the wrong kind
}

// A Transport makes the connections of a target: each built-in target is
// one (a file of this package beside the transport.Dialer it makes), and
// a package adds its own with Via. New calls Dialer once per replay.
type Transport interface {
	// Dialer checks the transport's settings and returns the dialer of
	// the replay's sessions. A bad setting is an *OptionError naming
	// it; a tape it cannot read, that error.
	Dialer(env DialEnv) (transport.Dialer, error)
	// String names the target as reports do, with no secret in it.
	String() string
}

// DialEnv is what a replay gives its Transport's Dialer.
type DialEnv struct {
	Logger      zerolog.Logger
	MaxMessage  int // the longest message the target may send, in bytes
	MaxInflight int // the requests in flight per session
	// Tape is the tape replayed, with the options it is read with (the
	// mock answers from it).
	Tape        tape.Source
	TapeOptions []tape.Option
}

// Via replays against tr, a transport of the caller's (a new protocol, a
// test double): the way to add a target without changing this package.
func Via(tr Transport) Target { return Target{impl: tr} }

// secretHolder is a Transport with values no output may show (see
// Target.secrets).
type secretHolder interface{ secrets() []string }

// headerMaker is a Transport that says what a tape re-recorded against it
// has in its header (see Target.tapeHeader).
type headerMaker interface {
	tapeHeader(old tape.Header) tape.Header
}

// transport is t's Transport: Mock's when none was given.
func (t Target) transport() Transport {
	if t.impl == nil {
		return mockTarget{}
	}
	return t.impl
}

// wrong marks t as given a With… method of another kind.
func (t Target) wrong(what string) Target {
	t.misuse = what
	return t
}

// WithEnv adds "K=V" values to a Command's environment.
func (t Target) WithEnv(kv ...string) Target {
	c, ok := t.impl.(commandTarget)
	if !ok {
		return t.wrong("WithEnv is for a Command target")
	}
	c.env = append(append([]string(nil), c.env...), kv...)
	t.impl = c
	return t
}

// WithDir sets a Command's working directory.
func (t Target) WithDir(dir string) Target {
	c, ok := t.impl.(commandTarget)
	if !ok {
		return t.wrong("WithDir is for a Command target")
	}
	c.dir = dir
	t.impl = c
	return t
}

// WithHeader adds a header sent on every request to an HTTP or Handler
// target; the value may use ${ENV} (expanded when sent).
func (t Target) WithHeader(key, value string) Target {
	add := func(h http.Header) http.Header {
		h = h.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Add(key, value)
		return h
	}
	switch c := t.impl.(type) {
	case httpTarget:
		c.header = add(c.header)
		t.impl = c
	case handlerTarget:
		c.header = add(c.header)
		t.impl = c
	default:
		return t.wrong("WithHeader is for an HTTP or Handler target")
	}
	return t
}

// WithLegacySSE says an HTTP target speaks the 2024-11-05 HTTP+SSE
// transport, without asking the endpoint.
func (t Target) WithLegacySSE() Target {
	c, ok := t.impl.(httpTarget)
	if !ok {
		return t.wrong("WithLegacySSE is for an HTTP target")
	}
	c.legacySSE = true
	t.impl = c
	return t
}

// WithFollowRedirects lets an HTTP target's requests follow a redirect
// (and a legacy server's message endpoint) to another origin than the
// target's: without it such a redirect fails the request. To another
// origin go only the protocol's own headers, never those of WithHeader.
// A redirect within the target's origin is followed in any case.
func (t Target) WithFollowRedirects() Target {
	c, ok := t.impl.(httpTarget)
	if !ok {
		return t.wrong("WithFollowRedirects is for an HTTP target")
	}
	c.follow = true
	t.impl = c
	return t
}

// WithHTTPClient chooses the client that POSTs an HTTP target's
// messages: "lean" (the default; a lean HTTP/1.1 client, about half the
// client CPU per request) or "std" (Go's net/http). https, a proxy
// (HTTP_PROXY), the standalone GET stream and a target that redirects
// go through net/http with either (see transport.PosterLean).
func (t Target) WithHTTPClient(name string) Target {
	c, ok := t.impl.(httpTarget)
	if !ok {
		return t.wrong("WithHTTPClient is for an HTTP target")
	}
	p, err := transport.ParsePoster(name)
	if err != nil {
		return t.wrong(err.Error())
	}
	c.poster = p
	t.impl = c
	return t
}

// DefaultHTTPSpare is the spare connections an HTTP target's sessions
// keep (see Target.WithHTTPSpare).
const DefaultHTTPSpare = 1

// WithHTTPSpare sets how many idle connections each session of an HTTP
// target keeps dialed ahead, beside those carrying requests, when the
// lean client posts (see WithHTTPClient): a request sent while the
// session's earlier ones still wait for their answers (--order none, a
// slow answer) takes one rather than wait for a new connection's dial,
// and another is dialed on a goroutine of its own. The default is
// DefaultHTTPSpare (1), 0 none, at most transport.MaxSpare; each costs a
// connection the server holds open idle.
func (t Target) WithHTTPSpare(n int) Target {
	c, ok := t.impl.(httpTarget)
	if !ok {
		return t.wrong("WithHTTPSpare is for an HTTP target")
	}
	if n < 0 || n > transport.MaxSpare {
		return t.wrong(fmt.Sprintf("spare connections %d: want 0 to %d", n, transport.MaxSpare))
	}
	c.spare = n
	if n == 0 {
		c.spare = -1
	}
	t.impl = c
	return t
}

// String names the target as reports do: "mock", a command line, a URL,
// the credentials of any URL masked (tape.MaskURL).
func (t Target) String() string { return t.transport().String() }

// dialer checks the target and makes its transport.
func (t Target) dialer(s *settings, src tape.Source, tapeOpts []tape.Option) (transport.Dialer, error) {
	if t.misuse != "" {
		return nil, &OptionError{Option: "Against", Value: t.String(), Err: fmt.Errorf("%s", t.misuse)}
	}
	return t.transport().Dialer(DialEnv{Logger: s.logger, MaxMessage: s.maxMessage, MaxInflight: s.maxInflight, Tape: src, TapeOptions: tapeOpts})
}

// secrets are the values of the target that no output may show (see
// httpTarget.secrets).
func (t Target) secrets() []string {
	if h, ok := t.transport().(secretHolder); ok {
		return h.secrets()
	}
	return nil
}

// tapeHeader is the header of a tape re-recorded against t from a tape
// whose header is old: old's tags, with the target's transport and server
// (old's for a mock, or a Transport that does not say).
func (t Target) tapeHeader(old tape.Header) tape.Header {
	h := tape.Header{Transport: old.Transport, Server: old.Server, Tags: old.Tags, ProtocolVersion: old.ProtocolVersion}
	if m, ok := t.transport().(headerMaker); ok {
		return m.tapeHeader(h)
	}
	return h
}
