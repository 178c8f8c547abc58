package slowmcp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// stdio runs Serve over pipes and returns the writer of its input and a
// reader of its output lines; Serve's error arrives on done.
func stdio(ctx context.Context, opts ...Option) (io.WriteCloser, *bufio.Reader, <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Serve(ctx, inR, outW, opts...)
		_ = outW.Close()
		done <- err
	}()
	return inW, bufio.NewReader(outR), done
}

func TestServeDelaysConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay, calls = time.Second, 10
		var arrivals strings.Builder
		in, out, done := stdio(t.Context(), WithDelay(delay), WithArrivals(&arrivals))
		began := time.Now()
		for i := range calls {
			fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t%d"}}}`+"\n", i, i)
		}
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
		line, _ := out.ReadString('\n')
		if want := `{"jsonrpc":"2.0","id":"p","result":{}}` + "\n"; line != want || time.Since(began) != 0 {
			t.Errorf("first answer after %s: got %q, want the ping at once", time.Since(began), line)
		}
		for range calls {
			line, err := out.ReadString('\n')
			if err != nil || !strings.Contains(line, `"text":"t`) {
				t.Fatalf("got %q, %v; want a tools/call answer", line, err)
			}
			if got := time.Since(began); got != delay {
				t.Errorf("tools/call answered after %s, want %s (calls are not queued)", got, delay)
			}
		}
		_ = in.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: got %v, want nil at the end of input", err)
		}
		if got := strings.Count(arrivals.String(), "\n"); got != calls+1 {
			t.Errorf("got %d arrival lines, want %d:\n%s", got, calls+1, arrivals.String())
		}
	})
}

func TestServeEOFWaitsForDelayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out, done := stdio(t.Context(), WithDelay(time.Second))
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)
		_ = in.Close()
		line, _ := out.ReadString('\n')
		if !strings.Contains(line, `"text":"ok"`) {
			t.Errorf("got %q, want the delayed answer after the end of input", line)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: got %v, want nil", err)
		}
	})
}

func TestServeNoRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		in, out, done := stdio(ctx, WithHang(HangNoRead))
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
		if line, _ := out.ReadString('\n'); !strings.Contains(line, `"serverInfo"`) {
			t.Fatalf("got %q, want the initialize answer", line)
		}
		for i := 1; i <= FloodRequests; i++ {
			line, err := out.ReadString('\n')
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":"srv-%d","method":"sampling/createMessage"`, i)
			if err != nil || !strings.HasPrefix(line, want) || len(line) < 900 {
				t.Fatalf("request %d: got %q, %v; want %s… of about 1 KB", i, line, err, want)
			}
		}
		var wg sync.WaitGroup
		wg.Go(func() { fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`) })
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Serve returned %v; want it to hang", err)
		default:
		}
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Serve: got %v, want context.Canceled", err)
		}
		_ = in.Close() // the write that nobody reads fails
		wg.Wait()
	})
}

// TestServeInitDelayAndAsk: initialize is answered after its delay while
// what follows is read at once; a roots/list request goes to the client
// its delay after notifications/initialized, and the client's answer is
// logged as a response.
func TestServeInitDelayAndAsk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var arrivals strings.Builder
		in, out, done := stdio(t.Context(), WithInitDelay(time.Second), WithAsk("roots/list", 350*time.Millisecond), WithArrivals(&arrivals))
		began := time.Now()
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
		fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		line, _ := out.ReadString('\n')
		if want := `{"jsonrpc":"2.0","id":"ask-1","method":"roots/list"}` + "\n"; line != want || time.Since(began) != 350*time.Millisecond {
			t.Errorf("after %s: got %q, want %q after 350ms", time.Since(began), line, want)
		}
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":"ask-1","result":{"roots":[]}}`)
		line, _ = out.ReadString('\n')
		if !strings.Contains(line, `"id":0,"result":{"protocolVersion":"2025-06-18"`) || time.Since(began) != time.Second {
			t.Errorf("after %s: got %q, want the initialize answer after 1s", time.Since(began), line)
		}
		_ = in.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		var kinds []string
		for l := range strings.Lines(arrivals.String()) {
			f := strings.Fields(l)
			kinds = append(kinds, f[1]+" "+f[2])
		}
		if got, want := strings.Join(kinds, ", "), `initialize 0, notifications/initialized -, response "ask-1"`; got != want {
			t.Errorf("arrivals: got %s, want %s", got, want)
		}
	})
}

// TestServeCancelSameID: with WithCancel, two delayed calls of one id
// are both answered: the first answer written does not take the
// second's place in the cancellable answers.
func TestServeCancelSameID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out, done := stdio(t.Context(), WithDelay(time.Second), WithCancel())
		for _, text := range []string{"a", "b"} {
			fmt.Fprintf(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`+"\n", text)
		}
		_ = in.Close()
		var got []string
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				break
			}
			got = append(got, line)
		}
		if len(got) != 2 {
			t.Errorf("got %d answers %q, want both calls of id 1 answered", len(got), got)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: got %v, want nil", err)
		}
	})
}

// TestCancelsReleased: an answer's entry goes when it is released,
// written or not, and only its own: a cancel of the id then cancels
// the other answer of that id still due.
func TestCancelsReleased(t *testing.T) {
	var cs cancels
	id := []byte("7")
	actx1, e1 := cs.add(t.Context(), id)
	actx2, e2 := cs.add(t.Context(), id)
	cs.release(e1) // its sleep failed, say: never taken
	if n := cs.len(); n != 1 {
		t.Errorf("after one release: %d entries, want 1", n)
	}
	if actx1.Err() == nil {
		t.Error("a released answer's context is not done")
	}
	cs.cancel(id)
	if actx2.Err() == nil {
		t.Error("cancel(7) did not cancel the answer of id 7 still due")
	}
	if cs.take(e2) {
		t.Error("a cancelled answer was taken: it would be written")
	}
	cs.release(e2)
	if n := cs.len(); n != 0 {
		t.Errorf("after both released: %d entries, want 0", n)
	}
}
