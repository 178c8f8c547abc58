package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// feedReader reads the page's feed (GET /events) as a viewer does: the
// name table from the hello and each frame, and the events.
type feedReader struct {
	sc    *bufio.Scanner
	names []string
}

// servedMessage is a judged event of the feed, names resolved.
type servedMessage struct {
	session, method, kind, verdict, detail string
	seq                                    int64
}

// next returns the judged events of the next frame.
func (f *feedReader) next(t *testing.T) []servedMessage {
	t.Helper()
	event := ""
	for f.sc.Scan() {
		l := f.sc.Text()
		if e, ok := strings.CutPrefix(l, "event: "); ok {
			event = e
			continue
		}
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			continue
		}
		if event == "hello" {
			var h struct{ Names []string }
			if err := json.Unmarshal([]byte(data), &h); err != nil {
				t.Fatalf("hello: %v: %s", err, data)
			}
			f.names = h.Names
			event = ""
			continue
		}
		if event != "" { // state, result
			event = ""
			continue
		}
		var fr struct {
			Base  int
			Names []string
			Ev    [][]json.RawMessage
		}
		if err := json.Unmarshal([]byte(data), &fr); err != nil {
			t.Fatalf("frame: %v: %s", err, data)
		}
		f.names = append(f.names[:fr.Base], fr.Names...)
		var out []servedMessage
		for _, ev := range fr.Ev {
			var code string
			_ = json.Unmarshal(ev[0], &code)
			if code != "J" {
				continue
			}
			name := func(i int) string {
				var k int
				_ = json.Unmarshal(ev[i], &k)
				if k < 0 {
					return ""
				}
				return f.names[k]
			}
			m := servedMessage{session: name(2), method: name(4), kind: name(5), verdict: name(7)}
			_ = json.Unmarshal(ev[3], &m.seq)
			_ = json.Unmarshal(ev[13], &m.detail)
			out = append(out, m)
		}
		return out
	}
	t.Fatalf("the feed ended: %v", f.sc.Err())
	return nil
}

// tapeRequests are the methods of the client's requests on the tape at
// path, sorted.
func tapeRequests(t *testing.T, path string) []string {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var methods []string
	for {
		m, err := r.Next()
		if err != nil {
			break
		}
		if msg, err := jsonrpc.Parse(m.Msg); err == nil && m.Dir == tape.C2S && msg.Kind == jsonrpc.KindRequest {
			methods = append(methods, msg.Method)
		}
	}
	slices.Sort(methods)
	return methods
}

// TestServeUIShowsTheTraffic: serve --ui's page feed carries each request
// of a real client (the Go SDK's test client over Streamable HTTP) as a
// judged message, verdict "served", in the client's session's lane, the
// requests the same as the recorded run's; the changed script's requests
// the tape lacks come as "miss", with the miss's message. The feed needs
// the page's token.
func TestServeUIShowsTheTraffic(t *testing.T) {
	server := testserver.GoSDK(t)
	opts := testclient.Options{Protocol: "2025-11-25"}
	path := filepath.Join(t.TempDir(), "recorded.jsonl")
	rec := testclient.RunClient(t, testclient.Go,
		testclient.Stdio(append([]string{binary, "record", "--quiet", "-o", path, "--"}, server...)...), opts)
	if rec.Status != 0 {
		t.Fatalf("recording: the client's exit status %d:\n%s\n%s", rec.Status, rec.Stdout, rec.Stderr)
	}
	want := tapeRequests(t, path)
	if len(want) < 3 {
		t.Fatalf("the recorded run has %d requests: %v; want a script's worth", len(want), want)
	}

	p := startServe(t, "--ui", "127.0.0.1:0", path)
	// The page's address is printed before serve's, maybe in the same
	// read of its stderr, whose copy into p.stderr may not have happened
	// yet.
	re := regexp.MustCompile(`(?m)^ui: (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})$`)
	var m []string
	pollUntil(t, serveWait, func() bool { m = re.FindStringSubmatch(p.stderr.String()); return m != nil }, "the page's address on serve's stderr")
	page := m[1]
	feedURL := strings.Replace(page, "/?token=", "/events?token=", 1)
	hc := &http.Client{Timeout: 30 * time.Second}
	if resp, err := hc.Get(strings.Split(feedURL, "?")[0]); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the feed without the token: %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}

	run := testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), opts)
	if run.Status != 0 {
		t.Fatalf("the client against serve: exit %d\n%s\n%s", run.Status, run.Stdout, run.Stderr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, feedURL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	f := &feedReader{sc: bufio.NewScanner(resp.Body)}
	f.sc.Buffer(nil, 16<<20)
	var got []string
	sessions := map[string]bool{}
	for len(got) < len(want) {
		for _, s := range f.next(t) {
			if s.kind != "request" {
				continue
			}
			if s.verdict != "served" {
				t.Errorf("%s seq %d %s: verdict %q (%s), want served", s.session, s.seq, s.method, s.verdict, s.detail)
			}
			got = append(got, s.method)
			sessions[s.session] = true
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the feed's requests:\n%v\nwant the recorded run's:\n%v", got, want)
	}
	if len(sessions) != 1 {
		t.Errorf("the client's requests came in %d lanes (%v), want its one session's", len(sessions), sessions)
	}

	changed := opts
	changed.Changed = true
	if ch := testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), changed); ch.Status != 1 {
		t.Fatalf("the changed script: exit %d, want 1 (misses)\n%s", ch.Status, ch.Stdout)
	}
	for missed := false; !missed; {
		for _, s := range f.next(t) {
			if s.verdict == "miss" {
				missed = true
				if !strings.Contains(s.detail, "closest recorded") {
					t.Errorf("a miss's detail %q: want the miss's message, naming the closest recorded request", s.detail)
				}
			}
		}
	}
	if code, stderr := p.stop(t); code != 0 {
		t.Errorf("serve: exit %d\n%s", code, stderr)
	}
}

// serve --mode record, a pass-through proxy, has no page: --ui is bad
// usage (exit 2) naming the flag, before anything is recorded.
func TestServeUIRefusedWhenRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.jsonl")
	for _, mode := range []string{"record", "once"} {
		cmd := exec.Command(binary, "serve", path, "--mode", mode, "--ui", "127.0.0.1:0", "--", "true")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--ui") {
			t.Errorf("serve --mode %s --ui: %v\n%s\nwant exit 2 naming --ui", mode, err, out)
		}
	}
}

// serve --ui-save over stdio: once the client closes its end, the page is
// written frozen with what serve saw — the client's session, its served
// call and its miss, the serve's end.
func TestServeUISaveStdio(t *testing.T) {
	out := filepath.Join(t.TempDir(), "serve.html")
	cmd := exec.Command(binary, "serve", "examples/quickstart.jsonl", "--ui-save", out)
	cmd.Dir = "../.."
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, replay"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"never recorded"}}}`,
	}, "\n") + "\n")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("serve --ui-save: %v\n%s", err, b)
	}
	verdicts, kept, ended := frozenRun(t, out)
	slices.Sort(verdicts)
	want := []string{"stdio initialize served", "stdio notifications/initialized taken", "stdio tools/call miss", "stdio tools/call served"}
	if !slices.Equal(verdicts, want) || !ended {
		t.Errorf("the frozen page's messages %v (ended %v), want %v and the serve's end", verdicts, ended, want)
	}
	if kept != 4 {
		t.Errorf("the frozen page keeps %d messages for the detail view, want 4", kept)
	}
}

// frozenRun reads the page --ui-save wrote to out: the client's judged
// messages, each "session method verdict", how many messages it keeps for
// the detail view, and whether it has the end.
func frozenRun(t *testing.T, out string) (verdicts []string, kept int, ended bool) {
	t.Helper()
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`window\.REPLAYCTL_FROZEN=(\{.*\});</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("%s holds no frozen run", out)
	}
	var frozen struct {
		Hello  struct{ Names []string }
		Frames []struct {
			Base  int
			Names []string
			Ev    [][]json.RawMessage
		}
		Messages map[string]json.RawMessage
	}
	if err := json.Unmarshal(m[1], &frozen); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range frozen.Frames {
		names = append(names[:f.Base], f.Names...)
		for _, ev := range f.Ev {
			var code string
			_ = json.Unmarshal(ev[0], &code)
			switch code {
			case "X":
				ended = true
			case "J":
				var session, method, verdict int
				var dir int
				_ = json.Unmarshal(ev[2], &session)
				_ = json.Unmarshal(ev[4], &method)
				_ = json.Unmarshal(ev[7], &verdict)
				_ = json.Unmarshal(ev[6], &dir)
				if names[dir] != "c2s" {
					continue
				}
				verdicts = append(verdicts, names[session]+" "+names[method]+" "+names[verdict])
			}
		}
	}
	return verdicts, len(frozen.Messages), ended
}

// record --ui-save: the frozen page of a recording (the Go SDK's test
// client through record over stdio, against the go-sdk conformance
// server) has each of the client's requests, answered, with the verdict
// "recorded", as many as the tape holds, and the recording's end; what it
// shows is redacted as the tape is (a secret the client passed, named by
// --redact-env, is nowhere in it).
func TestRecordUISave(t *testing.T) {
	const secret = "s3cr3t-Zq81-replayctl-ui"
	t.Setenv(e2eSecretVar, secret)
	dir := t.TempDir()
	path, out := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "rec.html")
	run := recordStdioClient(t, path, testclient.Go, testserver.GoSDK(t), testclient.Options{Protocol: "2025-11-25", SecretArg: secret},
		"--redact-env", e2eSecretVar, "--ui-save", out)
	mustSucceed(t, "through record --ui-save", run)
	checkRedacted(t, path, secret, run) // the client sent it; the tape has a marker
	verdicts, kept, ended := frozenRun(t, out)
	var got []string
	for _, v := range verdicts {
		f := strings.Fields(v)
		if f[2] != "recorded" {
			t.Errorf("%s: want the verdict recorded", v)
		}
		if f[1] != "" && !strings.HasPrefix(f[1], "notifications/") {
			got = append(got, f[1])
		}
	}
	slices.Sort(got)
	if want := tapeRequests(t, path); !slices.Equal(got, want) || !ended {
		t.Errorf("the frozen page's requests (ended %v):\n%v\nwant the tape's:\n%v", ended, got, want)
	}
	if kept < len(got) {
		t.Errorf("the frozen page keeps %d messages, fewer than its %d requests", kept, len(got))
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), secret) {
		t.Errorf("the frozen page holds the secret the tape has redacted")
	}
}

// record --ui, live, over HTTP: the page's feed carries each request of
// the Go SDK's test client, recorded through the proxy from the go-sdk
// conformance server, answered, with the verdict "recorded", in one lane:
// the same requests the tape holds once record stops.
func TestRecordUILiveHTTP(t *testing.T) {
	upstream := testserver.GoSDKHTTP(t)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	p := startCmd(t, exec.Command(binary, "record", "-o", path, "--listen", "127.0.0.1:0", "--upstream", upstream, "--ui", "127.0.0.1:0"))
	re := regexp.MustCompile(`(?m)^ui: (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})$`)
	var m []string
	pollUntil(t, serveWait, func() bool { m = re.FindStringSubmatch(p.stderr.String()); return m != nil }, "the page's address on record's stderr")
	run := testclient.RunClient(t, testclient.Go, testclient.HTTP(p.url), testclient.Options{Protocol: "2025-11-25"})
	mustSucceed(t, "through record --ui", run)
	// The client is done: every answer it got has been recorded, line by
	// line, before it was relayed.
	want := tapeRequests(t, path)
	if len(want) < 3 {
		t.Fatalf("the tape so far has %d requests: %v; want a script's worth", len(want), want)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.Replace(m[1], "/?token=", "/events?token=", 1), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	f := &feedReader{sc: bufio.NewScanner(resp.Body)}
	f.sc.Buffer(nil, 16<<20)
	var got []string
	sessions := map[string]bool{}
	for len(got) < len(want) {
		for _, s := range f.next(t) {
			if s.kind != "request" {
				continue
			}
			if s.verdict != "recorded" {
				t.Errorf("%s seq %d %s: verdict %q, want recorded", s.session, s.seq, s.method, s.verdict)
			}
			got = append(got, s.method)
			sessions[s.session] = true
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || len(sessions) != 1 {
		t.Errorf("the feed's requests, in %d lanes:\n%v\nwant the tape's, in one:\n%v", len(sessions), got, want)
	}
	if code, stderr := p.stop(t); code != 0 {
		t.Fatalf("record: exit %d\n%s", code, stderr)
	}
	if final := tapeRequests(t, path); !slices.Equal(final, want) {
		t.Errorf("the tape's requests once record stopped: %v, want %v", final, want)
	}
}
