package transport

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// TestPipeSendSlow: SendSlow over a Pipe delivers the line whole in
// more than one read; cut short by ctx during a pause it returns ctx's
// error and leaves the connection broken (a later Send fails), since
// part of a line is out.
func TestPipeSendSlow(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"0123456789"}}`
	type read struct {
		n    int
		data string
	}
	reads := make(chan read, 64)
	d := Pipe{Logger: testLogger(t), Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		buf := make([]byte, 4<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				reads <- read{n, string(buf[:n])}
			}
			if err != nil {
				return nil
			}
		}
	}}

	t.Run("whole", func(t *testing.T) {
		c := dialIn(t, d, "slow")
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if err := c.(SlowSender).SendSlow(ctx, []byte(msg), 7, time.Millisecond); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		pieces := 0
		for !strings.HasSuffix(got.String(), "\n") {
			select {
			case r := <-reads:
				got.WriteString(r.data)
				pieces++
			case <-ctx.Done():
				t.Fatalf("server read %q, want %q", got.String(), msg+"\n")
			}
		}
		if got.String() != msg+"\n" || pieces < 2 {
			t.Errorf("server read %q in %d reads, want %q in more than one", got.String(), pieces, msg+"\n")
		}
	})

	t.Run("cut", func(t *testing.T) {
		c := dialIn(t, d, "cut")
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		errc := make(chan error, 1)
		go func() { errc <- c.(SlowSender).SendSlow(ctx, []byte(msg), 7, time.Hour) }()
		wait, stop := context.WithTimeout(t.Context(), 30*time.Second)
		defer stop()
		select {
		case r := <-reads: // the first piece is out: SendSlow pauses
			if r.data != msg[:7] {
				t.Fatalf("server read %q first, want %q", r.data, msg[:7])
			}
		case <-wait.Done():
			t.Fatal("the first piece never came")
		}
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("SendSlow cut short: got %v, want context.Canceled", err)
		}
		err := c.Send(t.Context(), []byte(msg))
		if err == nil || !strings.Contains(err.Error(), "cancelled mid-message") {
			t.Errorf("Send after a cut SendSlow: got %v, want the connection broken", err)
		}
	})
}
