package record_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/internal/testos"
	"github.com/replayctl/replayctl/record"
)

// TestRecorderStdioRunWaitsForItsProxy: a stdio recording cancelled
// while its client never closes its input, against a server that ignores
// its stdin's end and SIGTERM and left a child of its own (in a session
// of its own, so the group's SIGKILL misses it) holding its stdout and
// stderr, returns only once the proxy is over: the result has how the
// server ended, and no goroutine Run started is left running. The
// proxy's stop takes its longest here: StopTimeout after stdin's end,
// again after SIGTERM, again for the stderr copy the orphan holds, and
// the grace of the stdout it holds.
func TestRecorderStdioRunWaitsForItsProxy(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid (util-linux)")
	}
	leaks := goleak.IgnoreCurrent()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "orphan.pid")
	script := `trap "" TERM; setsid sleep 3600 & echo $! > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 3600`
	in, w := pipePair(t) // the client's input, never closed while Run runs
	defer w.Close()
	const stop = 2 * time.Second
	r, err := record.New(filepath.Join(dir, "rec.jsonl"), record.Command("sh", "-c", script, pidFile),
		record.Client(in, &discard{}), record.StopTimeout(stop),
		record.WithStdio(record.StdioStderr(&discard{})))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startRun(ctx, r)
	waitForFile(t, pidFile, done)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil {
		t.Fatalf("%s: %v", pidFile, err)
	}
	t.Cleanup(func() { _ = testos.Kill(orphan) })
	cancel()
	o := <-done
	if !errors.Is(o.err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", o.err)
	}
	if !o.res.Stdio.Started || !o.res.Stdio.Stopped || o.res.Stdio.Signal != "killed" {
		t.Errorf("got stdio result %+v, want the proxy's: started, stopped, the server killed", o.res.Stdio)
	}
	goleak.VerifyNone(t, leaks)
}

// runOutcome is what Recorder.Run returned.
type runOutcome struct {
	res record.Result
	err error
}

// startRun runs r on a goroutine of its own; its outcome comes on the
// channel.
func startRun(ctx context.Context, r *record.Recorder) <-chan runOutcome {
	done := make(chan runOutcome, 1)
	go func() {
		res, err := r.Run(ctx)
		done <- runOutcome{res, err}
	}()
	return done
}

// waitForFile waits until path exists (the server wrote it once it
// started), failing if Run returns first or 30 s pass.
func waitForFile(t *testing.T, path string, done <-chan runOutcome) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not start within 30s")
		}
		select {
		case o := <-done:
			t.Fatalf("Run returned before the server started: %+v, %v", o.res, o.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestRecorderStdioRunBoundedForAnyCloser: a stdio recording whose
// client's input is an io.Closer of the caller's, whose Close does not
// end a Read in progress, returns once ctx is done (within the give-up
// Client documents, 2*StopTimeout+1s), not when the input ends.
func TestRecorderStdioRunBoundedForAnyCloser(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	in := &stubbornReader{release: make(chan struct{})}
	defer in.unblock() // the proxy's read of in ends, and with it its goroutine
	r, err := record.New(filepath.Join(dir, "rec.jsonl"),
		record.Command("sh", "-c", `: > "$0" && exec sleep 3600`, started),
		record.Client(in, &discard{}), record.StopTimeout(100*time.Millisecond),
		record.WithStdio(record.StdioStderr(&discard{})))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startRun(ctx, r)
	waitForFile(t, started, done)
	cancel()
	select {
	case o := <-done:
		if !errors.Is(o.err, context.Canceled) {
			t.Errorf("got error %v, want context.Canceled", o.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30s of ctx's end: it waits for a read Close does not end")
	}
}

// stubbornReader is a client's input whose Read waits until the test
// releases it, and whose Close does not end a Read in progress.
type stubbornReader struct {
	release chan struct{}
	once    sync.Once
}

func (r *stubbornReader) Read([]byte) (int, error) {
	<-r.release
	return 0, io.EOF
}

func (r *stubbornReader) Close() error { return nil }

func (r *stubbornReader) unblock() { r.once.Do(func() { close(r.release) }) }
