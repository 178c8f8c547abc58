package replay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/transport"
)

// counting is a Transport of the caller's: the go-sdk echo server in
// process, over transport.Handler, counting the sessions it dials.
type counting struct {
	dials *atomic.Int64
}

func (c counting) String() string { return "counting echo" }

func (c counting) Dialer(env replay.DialEnv) (transport.Dialer, error) {
	s := echoServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	return dialCounter{transport.Handler{Handler: h, Logger: env.Logger, MaxMessage: env.MaxMessage}, c.dials}, nil
}

type dialCounter struct {
	transport.Dialer
	n *atomic.Int64
}

func (d dialCounter) Dial(ctx context.Context, session string) (transport.Conn, error) {
	d.n.Add(1)
	return d.Dialer.Dial(ctx, session)
}

// broken is a Transport whose settings are bad.
type broken struct{}

func (broken) String() string { return "broken" }
func (broken) Dialer(replay.DialEnv) (transport.Dialer, error) {
	return nil, &replay.OptionError{Option: "broken", Value: "x", Err: errors.New("no such thing")}
}

// ExampleVia replays against a transport of the caller's: any type with
// Dialer and String is a target, without a change to package replay.
func ExampleVia() {
	var dials atomic.Int64
	rep, err := replay.RunSource(context.Background(), echoTape, replay.WithSpeed(replay.Fast()),
		replay.Sessions(3),
		replay.Against(replay.Via(counting{&dials})),
		replay.Ignore("result.serverInfo", "result.capabilities"))
	if rep == nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", rep.Passed(), "target:", rep.Summary.Target, "dials:", dials.Load())
	// Output: passed: true target: counting echo dials: 3
}

// TestViaErrors: a Transport's bad setting is Run's *OptionError, and a
// With… method of a built-in kind given to it fails as on another kind.
func TestViaErrors(t *testing.T) {
	for _, tc := range []struct {
		target replay.Target
		option string
	}{
		{replay.Via(broken{}), "broken"},
		{replay.Via(counting{new(atomic.Int64)}).WithEnv("A=B"), "Against"},
		{replay.Via(counting{new(atomic.Int64)}).WithHeader("X", "y"), "Against"},
	} {
		rep, err := replay.RunSource(t.Context(), echoTape, replay.Against(tc.target))
		var oe *replay.OptionError
		if rep != nil || !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("Via %v: %v, %v; want an *OptionError naming %s", tc.target, rep, err, tc.option)
		}
	}
}
