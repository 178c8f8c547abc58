package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
)

// slow is the slow test server run in this process over streams.
func slow(opts ...slowmcp.Option) func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	return func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		return slowmcp.Serve(ctx, in, out, opts...)
	}
}

// callTape records a handshake and one tools/call against the slow server.
func callTape(t *testing.T) string {
	t.Helper()
	return testtape.Record(t, transport.Pipe{Serve: slow()}, "stdio", testtape.Conversation("echo", `{"text":"call %d"}`, 1))
}

// TestMaxMessage: an answer that never ends fails the target, naming the
// limit; MaxMessage raises the limit for an answer that is merely large,
// and the report of that answer is small.
func TestMaxMessage(t *testing.T) {
	tp := callTape(t)

	rep, err := replay.Run(t.Context(), tp, replay.WithSpeed(replay.Fast()), replay.MaxMessage(1<<20),
		replay.Against(replay.Streams(slow(slowmcp.WithHang(slowmcp.HangEndless)))))
	if _, ok := errors.AsType[*transport.TooLargeError](err); !ok || !errors.Is(err, transport.ErrTarget) {
		t.Fatalf("endless answer: got error %v, want a *TooLargeError matching ErrTarget", err)
	}
	if rep == nil || rep.ExitStatus() != report.ExitTarget || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("endless answer: got a report %v exit %d, error %q; want exit 3 and the limit named", rep != nil, rep.ExitStatus(), err)
	}

	// Under chaos too: the limit, not a fault, stopped the connection, so
	// this is no survival verdict but a failed target.
	rep, err = replay.Run(t.Context(), tp, replay.WithSpeed(replay.Fast()), replay.MaxMessage(1<<20), replay.Chaos("timeout=0.01"), replay.Seed(1),
		replay.Against(replay.Streams(slow(slowmcp.WithHang(slowmcp.HangEndless)))))
	if _, ok := errors.AsType[*transport.TooLargeError](err); !ok || rep == nil || rep.ExitStatus() != report.ExitTarget {
		t.Errorf("endless answer under chaos: got error %v, want a *TooLargeError and exit 3", err)
	}

	// The timeout is no part of this test: under -race on a loaded machine
	// 50 MB takes longer to write, read and judge than the default 30s,
	// and the default limit's worth of it longer to write and read (at a
	// load average of 40 the request timed out first: no error).
	const size = 50_000_000
	big := replay.Against(replay.Streams(slow(slowmcp.WithAnswerSize(size))))
	if rep, err := replay.Run(t.Context(), tp, replay.WithSpeed(replay.Fast()), big, replay.Timeout(10*time.Minute)); !errors.Is(err, transport.ErrTarget) {
		timeouts := int64(-1)
		if rep != nil {
			timeouts = rep.Performance.Timeouts
		}
		t.Errorf("a 50 MB answer under the default limit: got %v (%d timeouts), want a failed target", err, timeouts)
	}
	rep, err = replay.Run(t.Context(), tp, replay.WithSpeed(replay.Fast()), big, replay.MaxMessage(64<<20), replay.Timeout(10*time.Minute))
	if err != nil || rep.Validation.Failed != 1 || rep.ExitStatus() != report.ExitFailed {
		t.Fatalf("a 50 MB answer under a 64 MiB limit: got %v, %d failed, %d timeouts; want it judged (and failed: it differs)", err, rep.Validation.Failed, rep.Performance.Timeouts)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 64<<10 || !json.Valid(b.Bytes()) || !bytes.Contains(b.Bytes(), []byte("(50000002 bytes)")) {
		t.Errorf("JSON report: %d bytes (valid %v), want a few KB with the answer's excerpt and size", b.Len(), json.Valid(b.Bytes()))
	}
}
