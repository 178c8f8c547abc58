package testclient

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

var clients = []Client{Go, TypeScript}

// The steps of the default script against each server.
var (
	goSDKSteps = []string{"initialize", "tools/list", "tools/call test_x_mcp_header", "tools/call (sum)",
		"tools/call test_simple_text", "resources/list", "resources/read test://static-text", "prompts/list",
		"prompts/get test_simple_prompt", "ping"}
	everythingSteps = []string{"initialize", "tools/list", "tools/call echo", "tools/call get-sum",
		"tools/call (simple text)", "resources/list", "resources/read demo://resource/static/document/architecture.md",
		"prompts/list", "prompts/get simple-prompt", "ping"}
)

type server struct {
	name   string
	target func(testing.TB) Target
	steps  []string
	echo   string // the echo tool's answer to client 0
}

var servers = []server{
	{"gosdk-stdio", func(tb testing.TB) Target { return Stdio(testserver.GoSDK(tb)...) }, goSDKSteps, "region=hello from client 0"},
	{"gosdk-http", func(tb testing.TB) Target { return HTTP(testserver.GoSDKHTTP(tb)) }, goSDKSteps, "region=hello from client 0"},
	{"everything-stdio", func(tb testing.TB) Target { return Stdio(testserver.Everything(tb)...) }, everythingSteps, "Echo: hello from client 0"},
	{"everything-http", func(tb testing.TB) Target { return HTTP(testserver.EverythingHTTP(tb)) }, everythingSteps, "Echo: hello from client 0"},
}

// TestScript runs each client against each server over stdio and HTTP,
// twice, and checks that every step succeeded, that the steps are the
// script's, and that the two transcripts are the same.
func TestScript(t *testing.T) {
	for _, c := range clients {
		for _, s := range servers {
			t.Run(string(c)+"/"+s.name, func(t *testing.T) {
				target := s.target(t)
				first := mustRun(t, c, target, Options{})
				if got := names(first.Steps); !slices.Equal(got, s.steps) {
					t.Errorf("got steps\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(s.steps, "\n\t"))
				}
				if got := text(t, find(t, first.Steps, 0, "tools/call")); got != s.echo {
					t.Errorf("got echo answer %q, want %q", got, s.echo)
				}
				// The go-sdk client speaks 2026-07-28 with the go-sdk server
				// over stdio (its stateful HTTP mode does not offer it), and
				// 2026-07-28 has no ping.
				wantPingSkipped := c == Go && s.name == "gosdk-stdio"
				if got := find(t, first.Steps, 0, "ping").Skipped != ""; got != wantPingSkipped {
					t.Errorf("got ping skipped %v, want %v", got, wantPingSkipped)
				}
				second := mustRun(t, c, target, Options{})
				if d := Diff(first.Steps, second.Steps); d != nil {
					t.Errorf("two runs differ:\n\t%s", strings.Join(d, "\n\t"))
				}
			})
		}
	}
}

// TestConcurrentHTTP runs four sessions of each client at once against
// each server over HTTP.
func TestConcurrentHTTP(t *testing.T) {
	const n = 4
	for _, c := range clients {
		for _, s := range servers {
			if !strings.HasSuffix(s.name, "-http") {
				continue
			}
			t.Run(string(c)+"/"+s.name, func(t *testing.T) {
				r := mustRun(t, c, s.target(t), Options{Clients: n})
				if got, want := len(r.Steps), n*len(s.steps); got != want {
					t.Fatalf("got %d steps, want %d", got, want)
				}
				for k := range n {
					var mine []Step
					for _, st := range r.Steps {
						if st.Client == k {
							mine = append(mine, st)
						}
					}
					if got := names(mine); !slices.Equal(got, s.steps) {
						t.Errorf("client %d: got steps %q, want %q", k, got, s.steps)
					}
					want := strings.Replace(s.echo, "client 0", "client "+string(rune('0'+k)), 1)
					if got := text(t, find(t, r.Steps, k, "tools/call")); got != want {
						t.Errorf("client %d: got echo answer %q, want %q", k, got, want)
					}
				}
			})
		}
	}
}

// TestChangedScript checks that the changed script differs from the
// default one: other arguments, one more call.
func TestChangedScript(t *testing.T) {
	target := HTTP(testserver.EverythingHTTP(t))
	for _, c := range clients {
		t.Run(string(c), func(t *testing.T) {
			def := mustRun(t, c, target, Options{})
			changed := mustRun(t, c, target, Options{Changed: true})
			if got, want := len(changed.Steps), len(def.Steps)+1; got != want {
				t.Fatalf("got %d steps, want %d", got, want)
			}
			d := Diff(def.Steps, changed.Steps)
			want := []string{"tools/call echo", "tools/call get-sum", "extra step"}
			if len(d) != len(want) {
				t.Fatalf("got differences\n\t%s\nwant %d, in %q", strings.Join(d, "\n\t"), len(want), want)
			}
			for i, w := range want {
				if !strings.Contains(d[i], w) {
					t.Errorf("got difference %q, want one about %q", d[i], w)
				}
			}
			last := changed.Steps[len(changed.Steps)-1]
			if got := text(t, last); got != "Echo: extra call from client 0" {
				t.Errorf("got last answer %q, want the extra echo", got)
			}
			if got := text(t, find(t, changed.Steps, 0, "tools/call get-sum")); got != "The sum of 20 and 22 is 42." {
				t.Errorf("got sum %q", got)
			}
		})
	}
}

// TestProtocol asks the go-sdk client for each revision.
func TestProtocol(t *testing.T) {
	tests := []struct {
		protocol string
		target   func(testing.TB) string
		ping     bool // ping is done, not skipped
	}{
		{"2025-11-25", testserver.GoSDKHTTP, true},
		{"2026-07-28", testserver.GoSDKHTTPStateless, false},
	}
	for _, tc := range tests {
		t.Run(tc.protocol, func(t *testing.T) {
			r := mustRun(t, Go, HTTP(tc.target(t)), Options{Protocol: tc.protocol})
			var init struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if err := json.Unmarshal(find(t, r.Steps, 0, "initialize").Result, &init); err != nil {
				t.Fatal(err)
			}
			if init.ProtocolVersion != tc.protocol {
				t.Errorf("got protocol %q, want %q", init.ProtocolVersion, tc.protocol)
			}
			if got := find(t, r.Steps, 0, "ping").Skipped == ""; got != tc.ping {
				t.Errorf("got ping done %v, want %v", got, tc.ping)
			}
		})
	}
}

// TestHeaderAndSecret puts a reverse proxy between each client and the
// server that keeps every request, and checks that the header came with
// each and the secret went in a tool call's arguments.
func TestHeaderAndSecret(t *testing.T) {
	const header, secret = "Bearer tok-123", "sk-secret-456"
	up, err := url.Parse(testserver.GoSDKHTTP(t))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex // guards auth, bodies
	var auth, bodies []string
	proxy := httputil.NewSingleHostReverseProxy(up)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		bodies = append(bodies, string(body))
		mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, c := range clients {
		t.Run(string(c), func(t *testing.T) {
			mu.Lock()
			auth, bodies = nil, nil
			mu.Unlock()
			r := mustRun(t, c, HTTP(srv.URL), Options{Headers: []string{"Authorization=" + header}, SecretArg: secret})
			if got := text(t, find(t, r.Steps, 0, "tools/call test_x_mcp_header (secret)")); got != "region="+secret {
				t.Errorf("got secret answer %q", got)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(auth) == 0 {
				t.Fatal("no request went through the proxy")
			}
			for i, a := range auth {
				if a != header {
					t.Errorf("request %d: got Authorization %q, want %q", i, a, header)
				}
			}
			var withKey int
			for _, b := range bodies {
				if strings.Contains(b, `"api_key":"`+secret+`"`) {
					withKey++
				}
			}
			if withKey != 1 {
				t.Errorf("got %d requests with the secret as api_key, want 1", withKey)
			}
		})
	}
}

// TestBadUsage: no server, or an unknown script, is exit status 2.
func TestBadUsage(t *testing.T) {
	for _, c := range clients {
		for _, args := range [][]string{nil, {flagName(c, "script"), "other", flagName(c, "http"), "http://127.0.0.1:1/"}} {
			argv := Command(t, c, HTTP("http://127.0.0.1:1/"), Options{})
			argv = append(argv[:1:1], args...)
			if c == TypeScript {
				argv = append(Command(t, c, HTTP("x"), Options{})[:2:2], args...)
			}
			out, err := exec.CommandContext(t.Context(), argv[0], argv[1:]...).CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("%s %q: got %v, want exit status 2\n%s", c, args, err, out)
			}
		}
	}
}

func flagName(c Client, name string) string {
	if c == Go {
		return "-" + name
	}
	return "--" + name
}

func mustRun(t *testing.T, c Client, target Target, o Options) Run {
	t.Helper()
	r := RunClient(t, c, target, o)
	if r.Status != 0 {
		t.Fatalf("%s client: exit status %d\n%s\nstderr:\n%s", c, r.Status, r.Stdout, r.Stderr)
	}
	return r
}

func names(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Step)
	}
	return out
}

// find is client k's first step whose name starts with prefix.
func find(t *testing.T, steps []Step, k int, prefix string) Step {
	t.Helper()
	for _, s := range steps {
		if s.Client == k && strings.HasPrefix(s.Step, prefix) && s.Skipped == "" || s.Client == k && s.Step == prefix {
			return s
		}
	}
	t.Fatalf("no step %q of client %d in %q", prefix, k, names(steps))
	return Step{}
}

// text is the text of a tool result's first content.
func text(t *testing.T, s Step) string {
	t.Helper()
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(s.Result, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("step %q: no text content in %s (%v)", s.Step, s.Result, err)
	}
	return res.Content[0].Text
}

// TestHelp: -h prints the usage and exits 0 (it is not bad usage).
func TestHelp(t *testing.T) {
	for _, c := range clients {
		argv := Command(t, c, HTTP("http://127.0.0.1:1/"), Options{})[:1:1]
		if c == TypeScript {
			argv = Command(t, c, HTTP("x"), Options{})[:2:2]
		}
		out, err := exec.CommandContext(t.Context(), argv[0], append(argv, "-h")[1:]...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "usage:") || !strings.Contains(string(out), "-clients") {
			t.Errorf("%s -h: %v, want exit status 0 and the usage\n%s", c, err, out)
		}
	}
}
