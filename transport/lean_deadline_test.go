package transport

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestSocketDeadline: the lean connection's deadline is the request's
// own when it comes before its context's, else none (the context's end
// aborts the call).
func TestSocketDeadline(t *testing.T) {
	now := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), now)
	defer cancel()
	cases := []struct {
		name string
		ctx  context.Context
		own  time.Time
		want time.Time
	}{
		{"neither", context.Background(), time.Time{}, time.Time{}},
		{"its own only", context.Background(), now, now},
		{"the context's only", ctx, time.Time{}, time.Time{}},
		{"its own first", ctx, now.Add(-time.Second), now.Add(-time.Second)},
		{"the context's first", ctx, now.Add(time.Second), time.Time{}},
		{"both at once", ctx, now, time.Time{}},
	}
	for _, c := range cases {
		if got := socketDeadline(c.ctx, c.own); !got.Equal(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// overdueCtx is a context whose deadline has passed before it is done
// (as a context.WithDeadline is, under load, between its deadline and
// its timer firing), here until end is called.
type overdueCtx struct {
	done chan struct{}
	once sync.Once
}

func (c *overdueCtx) Deadline() (time.Time, bool) { return time.Now().Add(-time.Second), true }
func (c *overdueCtx) Done() <-chan struct{}       { return c.done }
func (c *overdueCtx) Value(any) any               { return nil }
func (c *overdueCtx) end()                        { c.once.Do(func() { close(c.done) }) }

func (c *overdueCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestLeanFailsByContextOnceDone: a lean send whose context's deadline
// has passed but which is not done yet dials, sends and waits for its
// answer; it fails by the context only once the context is done, with
// the context's error. Its own deadline, later than the context's, does
// not end it either. Through SendBy (a new connection: the dial) and
// SendAsync (the kept-alive one: start).
func TestLeanFailsByContextOnceDone(t *testing.T) {
	reached := make(chan int, 2)
	release := make(chan struct{})
	srv := newRawServer(t, func(n int, req *http.Request, body []byte) (string, bool) {
		if n == 0 { // the first answers at once, so that the second finds the connection idle
			b := jsonAnswer(idOf(body))
			return jsonOK(b), false
		}
		reached <- n
		<-release // held until the test ends
		return "", true
	})
	defer close(release)
	dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := HTTP{URL: srv.url, Poster: PosterLean}.Dial(dctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	own := time.Now().Add(time.Minute)
	first := &overdueCtx{done: make(chan struct{})}
	defer first.end()
	if err := conn.(DeadlineSender).SendBy(first, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), own); err != nil {
		t.Fatalf("a send whose context's deadline had passed, not done: %v, want it sent", err)
	}
	select {
	case <-conn.Incoming():
	case <-dctx.Done():
		t.Fatal("no answer to the first send")
	}

	ctx := &overdueCtx{done: make(chan struct{})}
	defer ctx.end()
	sent := make(chan error, 1)
	as, ok := conn.(AsyncSender)
	if !ok || !as.SendAsync(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), own, func(err error) { sent <- err }) {
		t.Fatal("SendAsync did not take the send on the idle connection")
	}
	select {
	case <-reached:
	case err := <-sent:
		t.Fatalf("the send ended before it reached the server: %v (its context not done: %v)", err, ctx.Err())
	case <-dctx.Done():
		t.Fatal("the send did not reach the server within a minute")
	}
	ctx.end()
	select {
	case err := <-sent:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want the context's error", err)
		}
	case <-dctx.Done():
		t.Fatal("the send did not end within a minute of its context's end")
	}
}
