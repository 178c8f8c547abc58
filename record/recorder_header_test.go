package record

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/tape"
)

// TestRecorderHeaderNotWritten: a tape whose header cannot be written
// (the disk fills while it is written: here a writer that writes half of
// it and fails) leaves nothing half-made, and nothing the user had is
// lost: without Overwrite no file is left at the path, with it the old
// tape is as it was and nothing is left beside it. Run says so (an
// error that says "record: " once, Created false, Discarded true), over
// stdio and over HTTP.
func TestRecorderHeaderNotWritten(t *testing.T) {
	full := errors.New("no space left on device")
	defer func(w func(io.Writer, tape.Header) (*tape.Writer, error)) { newTapeWriter = w }(newTapeWriter)
	newTapeWriter = func(w io.Writer, h tape.Header) (*tape.Writer, error) {
		_, _ = io.WriteString(w, `{"type":"header","form`)
		return nil, full
	}
	const (
		old        = `{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}` + "\n"
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
		answer     = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"new","version":"0"}}}`
	)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	defer upstream.Close()
	for _, tc := range []struct {
		name            string
		http, overwrite bool
	}{
		{name: "stdio"},
		{name: "stdio, overwrite", overwrite: true},
		{name: "http", http: true},
		{name: "http, overwrite", http: true, overwrite: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if tc.overwrite {
				if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var opts []RecorderOption
			if tc.overwrite {
				opts = append(opts, Overwrite())
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.http {
				opts = append(opts, Upstream(upstream.URL+"/mcp"), Listen("127.0.0.1:0"),
					OnListening(func(_ net.Addr, url string) {
						// One exchange, whose answer makes the tape, then the end.
						defer cancel()
						resp, err := http.Post(url, "application/json", strings.NewReader(initialize))
						if err != nil {
							t.Errorf("post: %v", err)
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}))
			} else {
				opts = append(opts, Command("sh", "-c", "read l; echo '"+answer+"'"),
					Client(io.NopCloser(strings.NewReader(initialize+"\n")), io.Discard))
			}
			r, err := New(path, opts...)
			if err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(ctx)
			if !errors.Is(err, full) {
				t.Errorf("Run: %v, want the header's write error", err)
			} else if msg := err.Error(); !strings.HasPrefix(msg, "record: ") || strings.Count(msg, "record: ") != 1 {
				t.Errorf("Run: %q, want \"record: \" once, at its start", msg)
			}
			if res.Created || !res.Discarded {
				t.Errorf("result %+v, want Created false, Discarded true", res)
			}
			names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
			switch {
			case tc.overwrite:
				if b, _ := os.ReadFile(path); string(b) != old || len(names) != 1 {
					t.Errorf("the folder holds %q, the tape %q; want the old tape only, as it was", names, b)
				}
			case len(names) != 0:
				t.Errorf("the folder holds %q; want nothing (no half-made tape)", names)
			}
			if got := r.File(); got != "" {
				t.Errorf("File() = %q, want \"\" (no file)", got)
			}
		})
	}
}

// failingEnd is a tape's file that takes every write until the end
// line, which fails as a full disk does.
type failingEnd struct {
	w   io.Writer
	err error
}

func (f failingEnd) Write(b []byte) (int, error) {
	if strings.Contains(string(b), `"type":"end"`) {
		return 0, f.err
	}
	return f.w.Write(b)
}

// TestRecorderUnansweredTapeNotWritten: a file of requests one of which
// is never answered, whose tape then cannot be written whole (the end
// line fails), is reported as a failed write first: Run's error matches
// the write's and then says the request went unanswered, and
// Result.TapeErr is set. Before, the *UnansweredError hid the failed
// write, and record said the tape kept the request "with its end line".
func TestRecorderUnansweredTapeNotWritten(t *testing.T) {
	full := errors.New("no space left on device")
	defer func(w func(io.Writer, tape.Header) (*tape.Writer, error)) { newTapeWriter = w }(newTapeWriter)
	newTapeWriter = func(w io.Writer, h tape.Header) (*tape.Writer, error) {
		return tape.NewWriter(failingEnd{w, full}, h)
	}
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
		ping       = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		answer     = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"new","version":"0"}}}`
	)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	// The server answers initialize, then reads to the end without
	// answering the ping.
	r, err := New(path, Command("sh", "-c", "read l; echo '"+answer+"'; cat >/dev/null"),
		Client(io.NopCloser(strings.NewReader(initialize+"\n"+ping+"\n")), io.Discard),
		WithStdio(StdioAwaitAnswers(), StdioDrain(100*time.Millisecond), StdioStderr(io.Discard)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(t.Context())
	if !errors.Is(err, full) || res.TapeErr == nil || !errors.Is(res.TapeErr, full) {
		t.Fatalf("got %v (TapeErr %v), want the failed write", err, res.TapeErr)
	}
	if !errors.Is(err, ErrUnanswered) {
		t.Errorf("got %v, want it to say the ping was never answered too", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "record: write ") {
		t.Errorf("got %q, want the failed write first", msg)
	}
}
