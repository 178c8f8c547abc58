package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testserver"

	"github.com/replayctl/replayctl/serve"
)

// sameSteps fails the test when run's steps are not want's, or the
// client did not succeed.
func sameSteps(t *testing.T, what string, want []testclient.Step, run testclient.Run) {
	t.Helper()
	if d := testclient.Diff(want, run.Steps); d != nil || run.Status != 0 {
		t.Errorf("%s (client status %d): the transcript differs from the direct run's:\n%s\nstdout:\n%s\nstderr:\n%s",
			what, run.Status, strings.Join(d, "\n"), clip(run.Stdout, 3000), clip(run.Stderr, 3000))
	}
}

// TestServeModeRecordThenReplayStdio: the go-sdk client through serve
// --mode record (over stdio, the everything-server's command after --)
// sees what it sees straight against the server, and a later serve of
// that tape gives it the same transcript.
func TestServeModeRecordThenReplayStdio(t *testing.T) {
	server := testserver.GoSDK(t)
	direct := testclient.RunClient(t, testclient.Go, testclient.Stdio(server...), testclient.Options{})
	if direct.Status != 0 {
		t.Fatalf("the direct run failed (status %d):\n%s\n%s", direct.Status, direct.Stdout, direct.Stderr)
	}
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	rec := testclient.RunClient(t, testclient.Go,
		testclient.Stdio(append([]string{binary, "serve", path, "--mode", "record", "--"}, server...)...), testclient.Options{})
	sameSteps(t, "through serve --mode record", direct.Steps, rec)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("serve --mode record wrote no tape: %v", err)
	}
	again := testclient.RunClient(t, testclient.Go, testclient.Stdio(binary, "serve", "--strict", path), testclient.Options{})
	sameSteps(t, "serve (replay) of the recorded tape", direct.Steps, again)

	res := replayctl(t, "serve", path, "--mode", "record", "--", "true")
	if res.code != 2 || !strings.Contains(res.stderr, "--force") {
		t.Errorf("record over an existing tape: exit %d, stderr %q; want 2 and a word about --force", res.code, res.stderr)
	}
}

// TestServeModeRecordThenReplayHTTP is the same over HTTP: serve
// --mode record --listen --upstream in front of the everything-server's
// Streamable HTTP endpoint.
func TestServeModeRecordThenReplayHTTP(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	direct := testclient.RunClient(t, testclient.Go, testclient.HTTP(upstream), testclient.Options{})
	if direct.Status != 0 {
		t.Fatalf("the direct run failed (status %d):\n%s\n%s", direct.Status, direct.Stdout, direct.Stderr)
	}
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	p := startServe(t, path, "--mode", "record", "--upstream", upstream)
	sameSteps(t, "through serve --mode record", direct.Steps, testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), testclient.Options{}))
	if code, stderr := p.stop(t); code != 0 || !strings.Contains(stderr, "recorded ") {
		t.Fatalf("serve --mode record: exit %d, want 0 and a summary; stderr:\n%s", code, clip(stderr, 3000))
	}
	q := startServe(t, "--strict", path)
	sameSteps(t, "serve (replay) of the recorded tape", direct.Steps, testclient.RunClient(t, testclient.Go, testclient.HTTP(q.url), testclient.Options{}))
	if code, stderr := q.stop(t); code != 0 {
		t.Errorf("serve --strict of the recorded tape: exit %d; stderr:\n%s", code, clip(stderr, 3000))
	}
}

// TestServeModeOnce: the first serve --mode once records (the upstream
// answers), the second replays: its upstream is dead, and the client
// still gets the same transcript.
func TestServeModeOnce(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		server := testserver.GoSDK(t)
		path := filepath.Join(t.TempDir(), "once.jsonl")
		first := testclient.RunClient(t, testclient.Go,
			testclient.Stdio(append([]string{binary, "serve", path, "--mode", "once", "--"}, server...)...), testclient.Options{})
		if first.Status != 0 {
			t.Fatalf("the first once run failed (status %d):\n%s\n%s", first.Status, first.Stdout, first.Stderr)
		}
		dead := filepath.Join(t.TempDir(), "no-such-server")
		second := testclient.RunClient(t, testclient.Go,
			testclient.Stdio(binary, "serve", path, "--mode", "once", "--", dead), testclient.Options{})
		sameSteps(t, "the second once run (a server command that does not exist)", first.Steps, second)
	})
	t.Run("http", func(t *testing.T) {
		upstream := testserver.GoSDKHTTP(t)
		path := filepath.Join(t.TempDir(), "once.jsonl")
		p := startServe(t, path, "--mode", "once", "--upstream", upstream)
		first := testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), testclient.Options{})
		code, stderr := p.stop(t)
		if first.Status != 0 || code != 0 || !strings.Contains(stderr, "does not exist: recording") {
			t.Fatalf("the first once run: client status %d, serve exit %d; want 0, 0 and a word that it records; stderr:\n%s\nclient:\n%s\n%s", first.Status, code, clip(stderr, 3000), first.Stdout, first.Stderr)
		}
		q := startServe(t, "--strict", path, "--mode", "once", "--upstream", deadURL(t))
		sameSteps(t, "the second once run (a dead upstream)", first.Steps, testclient.RunClient(t, testclient.Go, testclient.HTTP(q.url), testclient.Options{}))
		code, stderr = q.stop(t)
		if code != 0 || !strings.Contains(stderr, "exists: replaying") {
			t.Errorf("the second once run: exit %d, want 0 and a word that it replays; stderr:\n%s", code, clip(stderr, 3000))
		}
	})
}

// TestServeModeBadUsage: a mode without its upstream, an unknown mode, an
// upstream in replay mode, and an upstream unlike the listener exit 2.
func TestServeModeBadUsage(t *testing.T) {
	recorded := "examples/go-sdk-2025.jsonl"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown mode", []string{"serve", "--mode", "rewind", recorded}, "--mode"},
		{"record without upstream", []string{"serve", "--mode", "record", "x.jsonl"}, "needs the real server"},
		{"new without upstream", []string{"serve", "--mode", "new", recorded}, "needs the real server"},
		{"once without upstream", []string{"serve", "--mode", "once", recorded}, "needs the real server"},
		{"upstream in replay", []string{"serve", recorded, "--upstream", "http://127.0.0.1:1/mcp"}, "replay answers from the tape only"},
		{"two upstreams", []string{"serve", "--mode", "new", recorded, "--upstream", "http://127.0.0.1:1/mcp", "--", "true"}, "one upstream"},
		{"bad upstream", []string{"serve", "--mode", "new", recorded, "--upstream", "ftp://x"}, "--upstream"},
		{"record stdio with URL", []string{"serve", "--mode", "record", "x.jsonl", "--upstream", "http://127.0.0.1:1/mcp"}, "--listen"},
		{"empty command", []string{"serve", "--mode", "record", "x.jsonl", "--"}, "nothing after --"},
		{"record with --strict", []string{"serve", "--mode", "record", "x.jsonl", "--strict", "--", "true"}, "--strict is for serving from the tape"},
		{"record with --chaos", []string{"serve", "--mode", "record", "x.jsonl", "--chaos", "delay=0.1", "--", "true"}, "--chaos is for serving from the tape"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, tc.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) || res.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing on stdout, an error naming %s", res.code, res.stdout, res.stderr, tc.want)
			}
		})
	}
}

// TestServeModeNew: serve --mode new of a tape recorded with the default
// script, in front of the everything-server, runs the changed script: its
// misses are forwarded (the client sees the real answers: the same
// transcript as straight against the server), the tape then holds them,
// the journal is gone, and a plain serve --strict of it answers the
// changed script with no miss (and the default script still). Over
// stdio in both revisions (2025-11-25: the upstream opened with the
// client's initialize; 2026-07-28: its server/discover), and over HTTP
// with a session-based and a stateless upstream.
func TestServeModeNew(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("stdio/"+protocol, func(t *testing.T) {
			server := testserver.GoSDK(t)
			opts := testclient.Options{Protocol: protocol}
			changed := testclient.Options{Protocol: protocol, Changed: true}
			path := filepath.Join(t.TempDir(), "new.jsonl")
			rec := testclient.RunClient(t, testclient.Go,
				testclient.Stdio(append([]string{binary, "serve", path, "--mode", "record", "--"}, server...)...), opts)
			if rec.Status != 0 {
				t.Fatalf("recording failed (status %d):\n%s\n%s", rec.Status, rec.Stdout, rec.Stderr)
			}
			direct := testclient.RunClient(t, testclient.Go, testclient.Stdio(server...), changed)
			before := len(serverMessages(t, path))
			fwd := testclient.RunClient(t, testclient.Go,
				testclient.Stdio(append([]string{binary, "serve", "--strict", path, "--mode", "new", "--"}, server...)...), changed)
			sameSteps(t, "the changed script through serve --mode new", direct.Steps, fwd)
			checkExtended(t, path, before)
			again := testclient.RunClient(t, testclient.Go, testclient.Stdio(binary, "serve", "--strict", path), changed)
			sameSteps(t, "the changed script against serve (replay) of the extended tape", direct.Steps, again)
			orig := testclient.RunClient(t, testclient.Go, testclient.Stdio(binary, "serve", "--strict", path), opts)
			sameSteps(t, "the default script against serve (replay) of the extended tape", rec.Steps, orig)
		})
	}
	for _, tc := range []struct {
		name     string
		upstream func(testing.TB) string
	}{
		{"http/sessions", testserver.GoSDKHTTP},
		{"http/stateless", testserver.GoSDKHTTPStateless},
	} {
		t.Run(tc.name, func(t *testing.T) {
			upstream := tc.upstream(t)
			changed := testclient.Options{Changed: true}
			path := filepath.Join(t.TempDir(), "new.jsonl")
			p := startServe(t, path, "--mode", "record", "--upstream", upstream)
			rec := testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), testclient.Options{})
			if code, stderr := p.stop(t); rec.Status != 0 || code != 0 {
				t.Fatalf("recording: client status %d, serve exit %d:\n%s\n%s", rec.Status, code, rec.Stdout, stderr)
			}
			direct := testclient.RunClient(t, testclient.Go, testclient.HTTP(upstream), changed)
			before := len(serverMessages(t, path))
			q := startServe(t, "--strict", path, "--mode", "new", "--upstream", upstream)
			sameSteps(t, "the changed script through serve --mode new", direct.Steps, testclient.RunClient(t, testclient.Go, testclient.HTTP(q.url), changed))
			code, stderr := q.stop(t)
			if code != 0 || !strings.Contains(stderr, "forwarded to the upstream and added") {
				t.Errorf("serve --mode new: exit %d, want 0 and a summary of what it added; stderr:\n%s", code, clip(stderr, 3000))
			}
			checkExtended(t, path, before)
			r := startServe(t, "--strict", path)
			sameSteps(t, "the changed script against serve (replay) of the extended tape", direct.Steps, testclient.RunClient(t, testclient.Go, testclient.HTTP(r.url), changed))
			if code, stderr := r.stop(t); code != 0 {
				t.Errorf("serve --strict of the extended tape: exit %d; stderr:\n%s", code, clip(stderr, 3000))
			}
		})
	}
}

// checkExtended fails the test when the tape at path has no more server
// messages than before, or its journal is left.
func checkExtended(t *testing.T, path string, before int) {
	t.Helper()
	if _, err := os.Stat(serve.Journal(path)); err == nil {
		t.Errorf("the journal %s is left after a clean stop", serve.Journal(path))
	}
	if after := len(serverMessages(t, path)); after <= before {
		t.Errorf("the tape has %d server messages after serve --mode new, %d before: nothing was added", after, before)
	}
}

// TestServeModeNewKilled: serve --mode new killed with SIGKILL after
// forwarding loses nothing: its journal holds every exchange the client
// got, the next serve --mode new merges it at start (its upstream dead:
// not needed), and a plain serve --strict then answers the changed
// script with no miss.
func TestServeModeNewKilled(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	changed := testclient.Options{Changed: true}
	path := filepath.Join(t.TempDir(), "new.jsonl")
	p := startServe(t, path, "--mode", "record", "--upstream", upstream)
	if rec := testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), testclient.Options{}); rec.Status != 0 {
		t.Fatalf("recording: client status %d:\n%s", rec.Status, rec.Stdout)
	}
	if code, stderr := p.stop(t); code != 0 {
		t.Fatalf("recording: exit %d:\n%s", code, stderr)
	}
	direct := testclient.RunClient(t, testclient.Go, testclient.HTTP(upstream), changed)
	before := len(serverMessages(t, path))

	q := startServe(t, path, "--mode", "new", "--upstream", upstream)
	sameSteps(t, "the changed script through serve --mode new", direct.Steps, testclient.RunClient(t, testclient.Go, testclient.HTTP(q.url), changed))
	if err := q.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	q.done <- <-q.done // for Cleanup
	if _, err := os.Stat(serve.Journal(path)); err != nil {
		t.Fatalf("serve --mode new killed: no journal: %v", err)
	}
	if n := len(serverMessages(t, path)); n != before {
		t.Fatalf("the tape changed under a serve that was killed: %d server messages, %d before", n, before)
	}

	r := startServe(t, path, "--mode", "new", "--upstream", deadURL(t))
	code, stderr := r.stop(t)
	if code != 0 || !strings.Contains(stderr, "did not stop cleanly") {
		t.Fatalf("the next serve --mode new: exit %d, want 0 and a word that it merged the journal; stderr:\n%s", code, clip(stderr, 3000))
	}
	checkExtended(t, path, before)
	s := startServe(t, "--strict", path)
	sameSteps(t, "the changed script against serve (replay) after the merge", direct.Steps, testclient.RunClient(t, testclient.Go, testclient.HTTP(s.url), changed))
	if code, stderr := s.stop(t); code != 0 {
		t.Errorf("serve --strict after the merge: exit %d; stderr:\n%s", code, clip(stderr, 3000))
	}
}

// TestServeModeNewDeadUpstream: a miss the upstream cannot answer stays
// a loud miss: the client gets the miss error, serve lists it with why
// forwarding failed, --strict exits 1, and the tape is unchanged.
func TestServeModeNewDeadUpstream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	data, err := os.ReadFile("../../examples/go-sdk-2025.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, "--strict", path, "--mode", "new", "--upstream", deadURL(t))
	run := testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), testclient.Options{Protocol: "2025-11-25", Changed: true})
	loud := false
	for _, s := range run.Steps {
		loud = loud || !s.OK && strings.Contains(string(s.Error), "closest recorded")
	}
	code, stderr := p.stop(t)
	if !loud || code != 1 || !strings.Contains(stderr, "forwarding it failed") {
		t.Errorf("client status %d (a step failing on a miss: %v), serve exit %d; want a loud miss, exit 1 and why forwarding failed; stderr:\n%s",
			run.Status, loud, code, clip(stderr, 3000))
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Errorf("the tape changed, though nothing was forwarded:\n%s", clip(string(after[len(data)-1:]), 4000))
	}
}

// TestServeModeNewBadFlagsLeaveNoJournal: serve --mode new refused for
// a flag it reads once the journal is open (--strategy, --report, a
// --listen address in use) exits 2 and leaves no TAPE.journal behind,
// which the next serve --mode new would take for a crashed serve's.
func TestServeModeNewBadFlagsLeaveNoJournal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"strategy", []string{"--strategy", "bogus"}, "--strategy"},
		{"report", []string{"--report", "r.txt"}, "--report"},
		{"listen in use", []string{"--listen", ln.Addr().String()}, "--listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "t.jsonl")
			if err := os.WriteFile(path, []byte(`{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
`), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append(append([]string{"serve", path, "--mode", "new"}, tc.args...), "--", "true")
			res := replayctl(t, args...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and an error naming %s", res.code, res.stderr, tc.want)
			}
			if _, err := os.Stat(serve.Journal(path)); err == nil {
				t.Errorf("%s is left behind", serve.Journal(path))
			}
		})
	}
}

// TestServeModeNewOneAtATime: while one serve --mode new adds to a tape, a
// second on the same tape is refused (exit 2, naming the lock) rather than
// taking the first one's live journal for a crash's leftover; once the
// first has stopped, the tape can be served with --mode new again.
func TestServeModeNewOneAtATime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	data, err := os.ReadFile("../../examples/go-sdk-2025.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	first := startServe(t, path, "--mode", "new", "--upstream", deadURL(t))
	// Bounded: a second serve that is not refused would serve until killed.
	ctx, cancel := context.WithTimeout(t.Context(), serveWait)
	defer cancel()
	second := exec.CommandContext(ctx, binary, "serve", path, "--mode", "new", "--listen", "127.0.0.1:0", "--upstream", deadURL(t))
	out, err := second.CombinedOutput()
	if code := second.ProcessState.ExitCode(); err == nil || code != 2 || !strings.Contains(string(out), "another serve --mode new is adding to") {
		t.Errorf("a second serve --mode new of the tape: exit %d (%v), output %q; want 2, refused while the first runs", code, err, out)
	}
	if _, err := os.Stat(serve.Journal(path)); err != nil {
		t.Errorf("the first serve's journal is gone while it runs: %v", err)
	}
	if code, stderr := first.stop(t); code != 0 {
		t.Fatalf("the first serve: exit %d\n%s", code, stderr)
	}
	again := startServe(t, path, "--mode", "new", "--upstream", deadURL(t))
	if code, stderr := again.stop(t); code != 0 {
		t.Errorf("serve --mode new after the first stopped: exit %d\n%s", code, stderr)
	}
}

// TestRecordForceWhileServeModeNew: record --force of a tape that a
// running serve --mode new is adding to is refused (exit 2, naming the
// serve and its lock), and leaves the tape as it was, rather than cutting
// it under the serve, which merges its journal into it as it stops.
func TestRecordForceWhileServeModeNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	data, err := os.ReadFile("../../examples/go-sdk-2025.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	first := startServe(t, path, "--mode", "new", "--upstream", deadURL(t))
	// Bounded: the recording ends when its client's input (one
	// initialize) does.
	ctx, cancel := context.WithTimeout(t.Context(), serveWait)
	defer cancel()
	rec := exec.CommandContext(ctx, binary, append([]string{"record", "-o", path, "--force", "--"}, testserver.Slow(t)...)...)
	rec.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	out, err := rec.CombinedOutput()
	if code := rec.ProcessState.ExitCode(); err == nil || code != 2 || !strings.Contains(string(out), "serve --mode new") || !strings.Contains(string(out), serve.Journal(path)+".lock") {
		t.Errorf("record --force of the tape a serve --mode new adds to: exit %d (%v), output %q; want 2, naming the serve and %s.lock", code, err, out, serve.Journal(path))
	}
	if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, data) {
		t.Errorf("the tape after the refused record --force: %d bytes (%v), want the %d it had", len(now), err, len(data))
	}
	if code, stderr := first.stop(t); code != 0 {
		t.Fatalf("serve --mode new: exit %d\n%s", code, stderr)
	}
}
