package replay

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Handler replays against a Streamable HTTP handler in this process, with
// no port: e.g. the go-sdk's mcp.NewStreamableHTTPHandler. Each session
// is a client of its own, as over the network.
func Handler(h http.Handler) Target { return Target{impl: handlerTarget{handler: h}} }

// Streams replays against a server run in this process over a pair of
// streams, as over stdio: serve is called once per session in a goroutine
// of its own, reads the client's JSON lines from in and writes its own to
// out, and should return when in ends or ctx is done. An error it returns
// early fails the session's target. With the go-sdk:
//
//	replay.Streams(func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
//		return server.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
//	})
func Streams(serve func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error) Target {
	return Target{impl: streamsTarget{serve: serve}}
}

// handlerTarget is Handler: a transport.Handler.
type handlerTarget struct {
	handler http.Handler
	header  http.Header
}

func (handlerTarget) String() string { return "in-process HTTP handler" }

func (h handlerTarget) Dialer(env DialEnv) (transport.Dialer, error) {
	if h.handler == nil {
		return nil, &OptionError{Option: "Handler", Value: "nil", Err: fmt.Errorf("no handler")}
	}
	if err := checkHeader(h.header); err != nil {
		return nil, err
	}
	return transport.Handler{Handler: h.handler, Header: h.header, Logger: env.Logger, MaxMessage: env.MaxMessage}, nil
}

func (h handlerTarget) secrets() []string { return headerSecrets(h.header) }

func (handlerTarget) tapeHeader(t tape.Header) tape.Header {
	t.Transport, t.Server = "streamable-http", nil
	return t
}

// streamsTarget is Streams: a transport.Pipe.
type streamsTarget struct {
	serve func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error
}

func (streamsTarget) String() string { return "in-process streams" }

func (s streamsTarget) Dialer(env DialEnv) (transport.Dialer, error) {
	if s.serve == nil {
		return nil, &OptionError{Option: "Streams", Value: "nil", Err: fmt.Errorf("no serve function")}
	}
	return transport.Pipe{Serve: s.serve, Logger: env.Logger, MaxMessage: env.MaxMessage}, nil
}

func (streamsTarget) tapeHeader(t tape.Header) tape.Header {
	t.Transport, t.Server = "stdio", nil
	return t
}
