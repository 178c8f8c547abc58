package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioPipes starts ServeStdio of fake on a pair of OS pipes and returns
// the client's ends and the channel ServeStdio's result arrives on.
func stdioPipes(t *testing.T, ctx context.Context, fake *fakeServer, opts ...ServerOption) (toServer *os.File, fromServer *os.File, done <-chan error) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	go func() {
		ch <- ServeStdio(ctx, inR, outW, fake, opts...)
		inR.Close()
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return inW, outR, ch
}

func TestServeStdioGoSDKClient(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version="+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
			defer cancel()
			fake := &fakeServer{}
			toServer, fromServer, done := stdioPipes(t, ctx, fake)
			c := newSDKClient()
			var opts *sdk.ClientSessionOptions
			if version != "" {
				opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
			}
			cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: fromServer, Writer: toServer}, opts)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if got := callText(ctx, t, cs, "echo", map[string]any{"text": "a\nb"}, sdk.Meta{"progressToken": 1}); got != "a\nb" {
				t.Errorf("echo: %q", got)
			}
			next(ctx, t, "progress notification", c.progress)
			if version != "" {
				if got := callText(ctx, t, cs, "sample", nil, nil); got != "sampled Paris" {
					t.Errorf("sample: %q", got)
				}
				callText(ctx, t, cs, "log", nil, nil)
				if got := next(ctx, t, "log notification", c.logs); got != "fake log" {
					t.Errorf("log: %q", got)
				}
			}
			if err := cs.Close(); err != nil { // closes toServer: EOF
				t.Errorf("close: %v", err)
			}
			if err := <-done; err != nil {
				t.Errorf("ServeStdio after the client's EOF: %v, want nil", err)
			}
			if o, c := fake.opened.Load(), fake.closed.Load(); o != 1 || c != 1 {
				t.Errorf("sessions opened %d closed %d, want 1 and 1", o, c)
			}
		})
	}
}

// TestServeStdioEdges: a line that is not JSON, a request whose Session
// fails, a batch, a hang-up — each line the server writes is JSON.
func TestServeStdioEdges(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
	defer cancel()
	toServer, fromServer, done := stdioPipes(t, ctx, &fakeServer{})
	out := bufio.NewReader(fromServer)
	roundTrip := func(line, want string) {
		t.Helper()
		if _, err := io.WriteString(toServer, line+"\n"); err != nil {
			t.Fatal(err)
		}
		got, err := out.ReadString('\n')
		if err != nil || !strings.Contains(got, want) {
			t.Fatalf("after %s: got %q (%v), want it to contain %s", line, got, err, want)
		}
	}
	roundTrip(`not json`, `"code":-32700`)
	roundTrip(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail"}}`, `"id":1,"error":{"code":-32603`)
	roundTrip(`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, `"id":2,"result":{}`)
	if _, err := io.WriteString(toServer, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hangup"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(out); err != nil || len(rest) != 0 {
		t.Errorf("after a hang-up: %q (%v), want the output closed", rest, err)
	}
	if err := <-done; !errors.Is(err, ErrHangUp) {
		t.Errorf("ServeStdio: %v, want ErrHangUp", err)
	}
}

func TestServeStdioLineTooLong(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
	defer cancel()
	toServer, _, done := stdioPipes(t, ctx, &fakeServer{}, ServerMaxMessage(100))
	go func() {
		_, _ = io.WriteString(toServer, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 300)+`"}}`+"\n")
	}()
	var tooLarge *TooLargeError
	if err := <-done; !errors.As(err, &tooLarge) {
		t.Errorf("ServeStdio: %v, want a *TooLargeError", err)
	}
}

// TestServeStdioDrain: the client closes its input while a request is held
// (a server that never answers it); ServeStdio cancels it after the drain
// time and returns nil, having written what was sent before.
func TestServeStdioDrain(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
	defer cancel()
	toServer, fromServer, done := stdioPipes(t, ctx, &fakeServer{}, StdioDrain(100*time.Millisecond))
	if _, err := io.WriteString(toServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"held"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(fromServer)
	if got, err := out.ReadString('\n'); err != nil || !strings.Contains(got, "notifications/progress") {
		t.Fatalf("got %q (%v), want the held call's progress first", got, err)
	}
	toServer.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio after the input ended with a request held: %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("ServeStdio did not return after the drain time: a held request keeps it forever")
	}
}
