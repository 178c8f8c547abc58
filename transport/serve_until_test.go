package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestServeUntilStopsWithCtx: ServeUntil serves on ln, calls OnServing
// with its address, and once ctx is done calls BeforeShutdown (here it
// ends a streamed answer in progress, which the shutdown would otherwise
// wait for), then returns nil with the listener closed.
func TestServeUntilStopsWithCtx(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	streaming := make(chan struct{})
	endStreams := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		close(streaming)
		<-endStreams
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan net.Addr, 1)
	var ended atomic.Bool
	done := make(chan error, 1)
	go func() {
		done <- ServeUntil(ctx, ln, h,
			OnServing(func(addr net.Addr) { served <- addr }),
			BeforeShutdown(func() { ended.Store(true); close(endStreams) }))
	}()
	addr := <-served
	if addr.String() != ln.Addr().String() {
		t.Fatalf("OnServing got %s, want %s", addr, ln.Addr())
	}
	resp, err := http.Get("http://" + addr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-streaming
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("got %v, want nil once ctx is done", err)
	}
	if !ended.Load() {
		t.Error("BeforeShutdown was not called")
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Errorf("the stream ended with %v, want its end", err)
	}
	if c, err := net.Dial("tcp", addr.String()); err == nil {
		c.Close()
		t.Error("the listener still accepts connections after ServeUntil returned")
	}
}

// failingListener fails its first Accept.
type failingListener struct{ net.Listener }

var errAccept = errors.New("accept failed for good")

func (failingListener) Accept() (net.Conn, error) { return nil, errAccept }

// TestServeUntilListenerFails: a listener that fails ends ServeUntil with
// its error, after BeforeShutdown.
func TestServeUntilListenerFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	called := false
	err = ServeUntil(context.Background(), failingListener{ln}, http.NotFoundHandler(),
		BeforeShutdown(func() { called = true }))
	if !errors.Is(err, errAccept) {
		t.Errorf("got %v, want the listener's error", err)
	}
	if !called {
		t.Error("BeforeShutdown was not called")
	}
}

// TestServeUntilLimitConns: with LimitConns(1), a second connection
// takes the place of an idle first one, which is closed.
func TestServeUntilLimitConns(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ServeUntil(ctx, ln, http.NotFoundHandler(), LimitConns(1, zerolog.Nop()))
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeUntil: %v", err)
		}
	}()
	first, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// A request answered on the first shows it is held before the second
	// comes.
	if _, err := io.WriteString(first, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := first.Read(buf); err != nil {
		t.Fatalf("no answer on the first connection: %v", err)
	}
	// The server marks the first idle a moment after its answer: a
	// second that comes before is refused (closed unanswered, the first
	// being answered). Dial again until one is admitted and answered.
	for deadline := time.Now().Add(30 * time.Second); ; {
		second, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer second.Close()
		if _, err := io.WriteString(second, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err == nil {
			if _, err := second.Read(buf); err == nil {
				break // admitted: the first made room
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no second connection was admitted within 30s")
		}
	}
	if err := first.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// The rest of the answer, then the end: the first was closed.
	if _, err := io.Copy(io.Discard, first); err != nil {
		t.Errorf("the first connection was not closed for the second: %v", err)
	}
}
