package record_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	mcpwire "github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/transport"
)

// TestRecorderHTTP records two go-sdk clients through a Recorder on a
// loopback port: OnListening gives the URL clients use, Run returns once
// ctx is done with what it recorded, the tape has the tags and one
// session per client; a second Recorder of the same tape without
// Overwrite is refused with an *InputError and leaves the tape as it was.
func TestRecorderHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	upstream := testserver.GoSDKHTTP(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	urls := make(chan string, 1)
	r, err := record.New(path,
		record.Upstream(upstream),
		record.Listen("127.0.0.1:0"),
		record.Tags(map[string]string{"server": "go-sdk"}),
		record.OnListening(func(_ net.Addr, url string) { urls <- url }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type ran struct {
		res record.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := r.Run(ctx)
		done <- ran{res, err}
	}()
	var url string
	select {
	case url = <-urls:
	case o := <-done:
		t.Fatalf("Run returned before listening: %v", o.err)
	}
	runClients(t, url, mcpwire.V20251125, 2, testtape.ScriptAll)
	cancel()
	o := <-done
	if o.err != nil {
		t.Fatalf("Run: %v", o.err)
	}
	if !o.res.Created || o.res.Sessions != 2 || o.res.Messages == 0 || o.res.Path != path {
		t.Errorf("result %+v, want the tape %s created with 2 sessions and its messages", o.res, path)
	}
	h, msgs := readTape(t, path)
	if h.Tags["server"] != "go-sdk" || h.ProtocolVersion != mcpwire.V20251125 {
		t.Errorf("header tags %v, protocol %s; want server=go-sdk, %s", h.Tags, h.ProtocolVersion, mcpwire.V20251125)
	}
	if int64(len(msgs)) != o.res.Messages {
		t.Errorf("%d messages on the tape, Result says %d", len(msgs), o.res.Messages)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	again, err := record.New(path, record.Upstream(upstream), record.Listen("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := again.Run(t.Context())
	var ie *record.InputError
	if !errors.As(err, &ie) || res.Created {
		t.Fatalf("a second recording of an existing tape: result %+v, error %v; want an *InputError and no tape", res, err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the refused recording changed the tape")
	}
}

// TestRecorderStdioNoServer: a server command that cannot start is an
// error matching transport.ErrTarget, and no tape is left.
func TestRecorderStdioNoServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	in, w := pipePair(t)
	defer w.Close()
	r, err := record.New(path, record.Command(filepath.Join(t.TempDir(), "no-such-server")),
		record.Client(in, &discard{}), record.StopTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(t.Context())
	if !errors.Is(err, transport.ErrTarget) || res.Stdio.Started || res.Created {
		t.Fatalf("result %+v, error %v; want a target error, nothing started, no tape", res, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a tape was left: %v", err)
	}
}

// TestRecorderNewRefuses: New refuses a recorder that is neither a stdio
// nor an HTTP one, or both.
func TestRecorderNewRefuses(t *testing.T) {
	cases := []struct {
		name string
		path string
		opts []record.RecorderOption
	}{
		{"no path", "", []record.RecorderOption{record.Command("srv")}},
		{"neither", "t.jsonl", nil},
		{"both", "t.jsonl", []record.RecorderOption{record.Command("srv"), record.Upstream("http://127.0.0.1:1/mcp"), record.Listen("127.0.0.1:0")}},
		{"HTTP without a listener", "t.jsonl", []record.RecorderOption{record.Upstream("http://127.0.0.1:1/mcp")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r, err := record.New(c.path, c.opts...); err == nil {
				t.Errorf("got %v, nil; want an error", r)
			}
		})
	}
}

// pipePair is an os.Pipe closed at the test's end.
func pipePair(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// discard is an io.Writer that keeps nothing (not an *os.File).
type discard struct{}

func (*discard) Write(b []byte) (int, error) { return len(b), nil }

// TestReachable: a port that listens is reachable; the same port once
// closed is not.
func TestReachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	if err := record.Reachable(t.Context(), url); err != nil {
		t.Errorf("Reachable(%s) while it listens: %v", url, err)
	}
	ln.Close()
	if err := record.Reachable(t.Context(), url); err == nil {
		t.Errorf("Reachable(%s) once closed: nil, want an error", url)
	}
}
