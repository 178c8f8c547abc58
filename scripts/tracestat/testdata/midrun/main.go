// Command midrun replays a tape against the in-process mock and starts a
// runtime trace only once the replay dials its first session: its
// stages' goroutines exist before the trace begins. tracestat's test builds it
// into the main module with go build -overlay (as cmd/tracestat-midrun):
// it imports the engine, which this module does not depend on.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/trace"
	"sync"
	"time"

	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/rs/zerolog"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: midrun TAPE TRACE")
		os.Exit(2)
	}
	out, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var once sync.Once
	var terr error
	cfg := engine.Config{
		Tape:   os.Args[1],
		Target: "mock",
		Dialer: tracingDialer{mock.FromSource(tape.File(os.Args[1])), func() {
			once.Do(func() { terr = trace.Start(out) })
		}},
		Speed:  scheduler.Speed{Mode: scheduler.Fixed, Interval: 20 * time.Millisecond},
		Logger: zerolog.Nop(),
	}
	e, err := engine.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = e.Run(ctx)
	trace.Stop()
	if err == nil {
		err = terr
	}
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// tracingDialer is d that calls dialed before each Dial.
type tracingDialer struct {
	d      transport.Dialer
	dialed func()
}

func (t tracingDialer) Dial(ctx context.Context, session string) (transport.Conn, error) {
	t.dialed()
	return t.d.Dial(ctx, session)
}
