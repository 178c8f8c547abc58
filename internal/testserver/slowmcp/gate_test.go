package slowmcp

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// lines reads out's lines onto a channel until out ends.
func lines(out *bufio.Reader) <-chan string {
	c := make(chan string, 16)
	go func() {
		defer close(c)
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				return
			}
			c <- line
		}
	}()
	return c
}

// TestGateHoldsUntilNCalls: two servers share an arrivals file and a gate
// of 2; the first one's call is not answered, however long it waits,
// until the second server has a call too; then both are answered after
// the delay.
func TestGateHoldsUntilNCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = time.Second
		path := filepath.Join(t.TempDir(), "arrivals")
		var ins [2]interface{ Write([]byte) (int, error) }
		var outs [2]<-chan string
		var dones [2]<-chan error
		for i := range 2 {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			in, out, done := stdio(t.Context(), WithDelay(delay), WithArrivals(f), WithGate(path, 2))
			defer in.Close()
			ins[i], outs[i], dones[i] = in, lines(out), done
		}
		call := func(i int) {
			fmt.Fprintf(ins[i], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t%d"}}}`+"\n", i, i)
		}
		call(0)
		time.Sleep(10 * time.Second) // 1,000 polls of the file
		synctest.Wait()
		select {
		case line := <-outs[0]:
			t.Fatalf("answered %q with one call of the 2 the gate waits for", line)
		default:
		}
		call(1)
		began := time.Now()
		for i := range 2 {
			if line := <-outs[i]; line != fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"t%d"}]}}`+"\n", i, i) {
				t.Errorf("server %d: got %q, want its call's answer", i, line)
			}
		}
		// The second call waited for the gate's next poll, then the delay.
		if got := time.Since(began); got < delay || got > delay+GatePoll {
			t.Errorf("answered %s after the second call, want %s to %s", got, delay, delay+GatePoll)
		}
	})
}

// TestGateDropsHeldCallAtEndOfInput: a call held by the gate when its
// input ends is not answered, and Serve returns.
func TestGateDropsHeldCallAtEndOfInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "arrivals")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in, out, done := stdio(t.Context(), WithArrivals(f), WithGate(path, 2))
		answers := lines(out)
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
		_ = in.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: got %v, want nil at the end of input", err)
		}
		if line, ok := <-answers; ok {
			t.Errorf("answered %q, want nothing: the gate never opened", line)
		}
	})
}
