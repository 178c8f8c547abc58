package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testbuf"
)

// replayctl run --ui prints the page's address with its token on stderr;
// the page needs the token; its feed carries the whole run from its start
// and then its verdict; with --ui-hold the page stays until an interrupt,
// and the run's own exit status stands.
func TestRunUIServesThePage(t *testing.T) {
	cmd := exec.Command(binary, "run", "examples/quickstart.jsonl", "--speed", "fast", "--ui", "127.0.0.1:0", "--ui-hold", "-q")
	cmd.Dir = "../.."
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	defer func() {
		cmd.Process.Kill()
		<-done
	}()
	urls := make(chan string, 1)
	var rest strings.Builder
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`^ui: (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})$`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
			mu.Lock()
			rest.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
		done <- cmd.Wait()
	}()
	var page string
	select {
	case page = <-urls:
	case err := <-done:
		done <- err
		t.Fatalf("replayctl ended before printing the page's address: %v\n%s", err, rest.String())
	case <-time.After(time.Minute):
		t.Fatal("no page address on stderr within a minute")
	}
	client := &http.Client{Timeout: time.Minute}
	get := func(u string) (int, string) {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b)
	}
	if code, body := get(page); code != 200 || !strings.Contains(body, `id="lanes"`) {
		t.Errorf("the page: %d %.100q, want 200 and the page", code, body)
	}
	if code, _ := get(strings.Split(page, "?")[0]); code != 401 {
		t.Errorf("the page without its token: %d, want 401", code)
	}
	resp, err := client.Get(strings.Replace(page, "/?token=", "/events?token=", 1))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	// The verdict comes after the run's end, or, for a visitor who comes
	// after the end, first, in the hello; the end's frame follows either way.
	var sawEnd, sawResult bool
	for !(sawEnd && sawResult) && sc.Scan() {
		l := sc.Text()
		sawEnd = sawEnd || strings.Contains(l, `["X",`)
		sawResult = sawResult || strings.HasPrefix(l, "data: ") && strings.Contains(l, `"passed":true`)
	}
	resp.Body.Close()
	if !sawEnd || !sawResult {
		t.Fatalf("the feed ended without the run's end and its verdict: %v", sc.Err())
	}
	// The page's server serves the run's metrics too, behind the same
	// token, given as Prometheus sends it.
	base, token, _ := strings.Cut(page, "/?token=")
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	mresp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	if mresp.StatusCode != 200 || !strings.Contains(string(mb), `replayctl_requests_total{method="tools/call"} 3`) || !strings.Contains(string(mb), "replayctl_run_ended 1") {
		t.Errorf("/metrics with the token: %d\n%s\nwant 200, 3 tools/call requests and the run ended", mresp.StatusCode, mb)
	}
	if code, _ := get(base + "/metrics"); code != 401 {
		t.Errorf("/metrics without the token: %d, want 401", code)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = <-done
	done <- err
	mu.Lock()
	defer mu.Unlock()
	if err != nil || !strings.Contains(out.String(), "PASSED") && !strings.Contains(out.String(), "passed") {
		t.Errorf("exit %v, stdout %q, want 0 and the summary\nstderr: %s", err, out.String(), rest.String())
	}
	if !strings.Contains(rest.String(), "the page stays at") {
		t.Errorf("stderr does not say the page stays (--ui-hold):\n%s", rest.String())
	}
}

// Bad --ui flags exit 2 naming the flag, before anything is replayed.
func TestRunUIFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ui", "0.0.0.0:0"}, "--ui 0.0.0.0:0: beyond loopback"},
		{[]string{"--ui", ":0"}, "--ui :0: beyond loopback"},
		{[]string{"--ui", "8080"}, "a port alone"},
		{[]string{"--ui-hold"}, "give --ui ADDR too"},
		{[]string{"--ui-journal", "10"}, "give one of them too"},
		{[]string{"--ui-save", "/nonexistent-dir/page.html"}, "--ui-save /nonexistent-dir/page.html"},
		{[]string{"--ui", "127.0.0.1:0", "--ui-journal", "0"}, "--ui-journal 0"},
		{[]string{"--ui", "127.0.0.1:0", "--local-shards", "2"}, "not with --local-shards"},
	} {
		res := replayctl(t, append([]string{"run", "examples/quickstart.jsonl", "--speed", "fast"}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
}

// --ui-save writes the page frozen with the run, with no --ui: one HTML
// file with the run's events, its verdict and its messages' bytes.
func TestRunUISave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.html")
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--ui-save", path)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"window.REPLAYCTL_FROZEN=", `["X",`, `"passed":true`, `"method":"tools/call"`, `id="lanes"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the saved page has no %q", want)
		}
	}
	if strings.Count(page, "</script>") != 2 {
		t.Errorf("the saved page has %d </script>, want 2 (its data's and its script's)", strings.Count(page, "</script>"))
	}
}

// waitFor waits until n holds want, or fails after a minute.
func waitFor(t *testing.T, n *testbuf.Buffer, want string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for !strings.Contains(n.String(), want) {
		select {
		case <-n.Wrote():
		case <-deadline:
			t.Fatalf("no %q within a minute in:\n%s", want, n.String())
		}
	}
}

// replayctl debug --ui: a step from the page is what the REPL's status
// shows, and a step typed at the REPL is pushed to the page's feed.
func TestDebugUIAndTheREPLShareTheState(t *testing.T) {
	cmd := exec.Command(binary, "debug", "examples/quickstart.jsonl", "--ui", "127.0.0.1:0")
	cmd.Dir = "../.."
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, errb := &testbuf.Buffer{}, &testbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("replayctl debug: %v\n%s", err, errb.String())
		}
	}()
	waitFor(t, errb, "?token=")
	page := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?token=[0-9a-f]+`).FindString(errb.String())
	waitFor(t, out, "next: seq 3 c2s tools/list") // the REPL replayed the handshake
	control := strings.Replace(page, "/?token=", "/api/control?token=", 1)
	resp, err := http.Post(control, "application/json", strings.NewReader(`{"cmd":"step"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		OK    bool
		Error string
		State struct {
			State          string
			Seq            int64
			Released, Sent int64
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&reply)
	resp.Body.Close()
	if err != nil || !reply.OK || reply.State.State != "paused" {
		t.Fatalf("step from the page: %v %+v", err, reply)
	}
	io.WriteString(stdin, "status\n")
	// (The REPL names the next client message: seq is the tape's next.)
	waitFor(t, out, fmt.Sprintf("(step); speed fast; released %d, sent %d,", reply.State.Released, reply.State.Sent))

	feed, err := (&http.Client{Timeout: time.Minute}).Get(strings.Replace(page, "/?token=", "/events?token=", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Body.Close()
	io.WriteString(stdin, "step\n")
	want := fmt.Sprintf(`"sent":%d,`, reply.State.Sent+1)
	sc := bufio.NewScanner(feed.Body)
	sc.Buffer(nil, 16<<20)
	state := false
	for sc.Scan() {
		l := sc.Text()
		if state && strings.Contains(l, want) && strings.Contains(l, `"state":"paused"`) {
			break
		}
		state = l == "event: state" || (state && l != "")
	}
	if sc.Err() != nil {
		t.Fatal(sc.Err())
	}
	io.WriteString(stdin, "quit\n")
}
