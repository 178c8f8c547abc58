package main

import (
	"os"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/transport"
)

// script is a short, deterministic client conversation for a server whose
// tool `tool` answers args with a fixed text.
func script(tool, args, args2 string) [][]byte {
	return [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"replayctl-test","version":"0"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		[]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`),
		[]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`),
		[]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args2 + `}}`),
	}
}

// recordTape records msgs from a live target into a new tape file.
func recordTape(t *testing.T, d transport.Dialer, transportName string, msgs [][]byte) string {
	t.Helper()
	return testtape.Record(t, d, transportName, msgs)
}

type target struct {
	name      string
	transport string
	// dialer records; args replay (after the tape).
	dialer func(t *testing.T) (transport.Dialer, []string)
	tool   string
	args   [2]string
}

func realTargets() []target {
	stdio := func(argv func(testing.TB) []string) func(t *testing.T) (transport.Dialer, []string) {
		return func(t *testing.T) (transport.Dialer, []string) {
			cmd := argv(t)
			return transport.Stdio{Command: cmd}, append([]string{"--"}, cmd...)
		}
	}
	http := func(url func(testing.TB) string) func(t *testing.T) (transport.Dialer, []string) {
		return func(t *testing.T) (transport.Dialer, []string) {
			u := url(t)
			return transport.HTTP{URL: u}, []string{"--target", u}
		}
	}
	echo := [2]string{`{"message":"hello, replay"}`, `{"message":"second"}`}
	simple := [2]string{`{}`, `{}`}
	return []target{
		{"server-everything/stdio", "stdio", stdio(testserver.Everything), "echo", echo},
		{"server-everything/http", "streamable-http", http(testserver.EverythingHTTP), "echo", echo},
		{"go-sdk/stdio", "stdio", stdio(testserver.GoSDK), "test_simple_text", simple},
		{"go-sdk/http", "streamable-http", http(testserver.GoSDKHTTP), "test_simple_text", simple},
	}
}

func TestReplayAgainstRealServers(t *testing.T) {
	for _, tg := range realTargets() {
		t.Run(tg.name, func(t *testing.T) {
			d, targetArgs := tg.dialer(t)
			path := recordTape(t, d, tg.transport, script(tg.tool, tg.args[0], tg.args[1]))

			res := replayctl(t, append([]string{"run", path, "--speed", "fast", "-o", "json"}, targetArgs...)...)
			if res.code != 0 {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			r := decodeReport(t, res.stdout)
			if r.Validation.Checked != 5 || r.Validation.Failed != 0 {
				t.Errorf("checked %d failed %d, want 5 and 0", r.Validation.Checked, r.Validation.Failed)
			}

			// One changed recorded answer fails exactly that message.
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(b), "\n")
			changed := false
			for i, l := range lines {
				if strings.Contains(l, `"dir":"s2c"`) && (strings.Contains(l, `"id":5,"result"`) || strings.Contains(l, `"id":5}`)) && strings.Contains(l, `"text":"`) {
					lines[i] = strings.Replace(l, `"text":"`, `"text":"CHANGED `, 1)
					changed = true
				}
			}
			if !changed {
				t.Fatalf("recorded tape has no text answer to id 5:\n%s", b)
			}
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			res = replayctl(t, append([]string{"run", path, "--speed", "fast", "-o", "json"}, targetArgs...)...)
			if res.code != 1 {
				t.Fatalf("changed tape: exit %d, want 1\n%s", res.code, res.stderr)
			}
			r = decodeReport(t, res.stdout)
			if r.Validation.Failed != 1 || len(r.Validation.Failures) != 1 || !strings.HasPrefix(r.Validation.Failures[0].Differences[0].Path, "result.content[0].text") {
				t.Errorf("changed tape: failed %d, failures %+v; want exactly the answer to id 5", r.Validation.Failed, r.Validation.Failures)
			}
		})
	}
}

// A server that dies mid-replay: exit 3 and a message with its status and
// what it wrote on stderr.
func TestServerCrashExitsThree(t *testing.T) {
	crash := `read l; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"crash","version":"0"}}}'; read l; read l; echo 'fatal: tools/list is broken' >&2; exit 7`
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--", "sh", "-c", crash)
	if res.code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{"status 7", "tools/list is broken"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
}

// A server that never answers: each request times out and is cancelled,
// and the replay ends by itself.
func TestHangingServerTimesOut(t *testing.T) {
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--order", "none", "--timeout", "300ms", "-o", "json", "--", "sh", "-c", "cat > /dev/null")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	var rep struct {
		Performance struct {
			Timeouts int `json:"timeouts"`
		} `json:"performance"`
	}
	if err := jsonUnmarshal(res.stdout, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Performance.Timeouts != 8 {
		t.Errorf("timeouts = %d, want 8 (every request)", rep.Performance.Timeouts)
	}
}
