package coord

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testos"
)

// envHungShard makes the test binary, started as a shard by RunLocal, a
// shard that never joins and never exits (TestHelperHungShard).
const envHungShard = "REPLAYCTL_COORD_HUNG_SHARD"

// TestHelperHungShard is not a test: run by RunLocal as a shard process
// with envHungShard set, it hangs until it is signalled, as a shard that
// is stuck before it registers does.
func TestHelperHungShard(t *testing.T) {
	if os.Getenv(envHungShard) == "" {
		t.Skip("a shard process of TestRunLocalEndsHungShards")
	}
	select {}
}

// TestRunLocalEndsHungShards: once Serve returns (here the shard did not
// register within the register timeout, so the run is over before it
// started), RunLocal stops the shard processes still running rather than
// waiting for them for ever.
func TestRunLocalEndsHungShards(t *testing.T) {
	t.Setenv(envHungShard, "1")
	srv, err := New(1, RegisterTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 1)
	type outcome struct {
		procs []Process
		err   error
	}
	done := make(chan outcome, 1)
	go func() {
		_, procs, err := srv.RunLocal(context.Background(), ln, os.Args[0], []string{"-test.run=^TestHelperHungShard$"},
			LocalStderr(&testWriter{t}), OnStarted(func(_, pid int) { pids <- pid }))
		done <- outcome{procs, err}
	}()
	pid := <-pids
	// Cleanup runs after the test, also when it fails: the hung shard
	// must not outlive it, nor RunLocal's goroutine (goleak).
	t.Cleanup(func() {
		_ = testos.Kill(pid)
		<-done
	})
	select {
	case o := <-done:
		done <- o // for the cleanup
		if len(o.procs) != 1 || o.procs[0].Err == nil {
			t.Fatalf("got processes %+v, want shard 0 ended by a signal", o.procs)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("RunLocal still waits for its hung shard (pid %d) 60s after the run was over", pid)
	}
}

// testWriter logs what is written to it through t.
type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", p)
	return len(p), nil
}

// failingListener fails every Accept, as a listener closed under the
// server does.
type failingListener struct{ net.Listener }

var errAccept = errors.New("accept failed for good")

func (failingListener) Accept() (net.Conn, error) { return nil, errAccept }

// TestServeListenerFails: a coordinator whose listener fails cannot be
// reached by any shard: Serve stops the run and returns the listener's
// error, rather than waiting out the register timeout.
func TestServeListenerFails(t *testing.T) {
	srv, err := New(2, RegisterTimeout(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := srv.Serve(ctx, failingListener{ln})
		done <- err
	}()
	t.Cleanup(func() {
		cancel() // ends Serve if the test failed
		<-done
		ln.Close()
	})
	select {
	case err := <-done:
		done <- err // for the cleanup
		if !errors.Is(err, errAccept) {
			t.Fatalf("got %v, want the listener's error", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Serve still runs 60s after its listener failed")
	}
}
