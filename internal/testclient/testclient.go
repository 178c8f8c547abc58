package testclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testserver"
)

// Client names one of the two test clients.
type Client string

// The test clients.
const (
	Go         Client = "go-sdk"
	TypeScript Client = "typescript-sdk"
)

// Target is the server a client runs against: a command it starts and
// speaks to over stdio, or a Streamable HTTP endpoint.
type Target struct {
	Argv []string
	URL  string
}

// Stdio is the server started from argv.
func Stdio(argv ...string) Target { return Target{Argv: argv} }

// HTTP is the Streamable HTTP endpoint at url.
func HTTP(url string) Target { return Target{URL: url} }

// Options are a run's flags; the zero value is one session of the default
// script, the SDK's choice of protocol, a one-minute bound.
type Options struct {
	Protocol  string   // "", "2025-11-25" or "2026-07-28" (Go only: the TypeScript SDK speaks 2025-11-25 at most)
	Clients   int      // concurrent sessions; 0 is 1
	Changed   bool     // the "changed" script
	Headers   []string // NAME=VALUE, sent with every HTTP request
	SecretArg string   // a secret passed in a tool call's arguments
	Timeout   time.Duration
	// NoRoots: the client offers no roots capability, so a server that
	// asks for roots some time after initialized (server-everything, 350ms
	// later) never does, rather than only in a session that lasts longer.
	NoRoots bool
}

const (
	// A bound, not a wait (a script ends as soon as its steps are
	// answered): beside two CPU burners at load 38 the go-sdk client's
	// initialize of server-everything over stdio (a node start) did not
	// end within 1m, once in 16 runs.
	defaultTimeout = 3 * time.Minute
	killMargin     = 15 * time.Second // past the client's own -timeout, before it is killed
	buildTimeout   = 5 * time.Minute
)

// Step is one line of a transcript.
type Step struct {
	Client  int             `json:"client"`
	Step    string          `json:"step"`
	OK      bool            `json:"ok"`
	Skipped string          `json:"skipped,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// Run is what a run of a client gave.
type Run struct {
	Steps  []Step
	Status int    // the client's exit status: 0 all steps ok, 1 a step failed
	Stdout string // the transcript as printed
	Stderr string
}

// Command is the argv that runs client c against t with o: for a test
// that runs it itself, for instance in front of a proxy. It skips the test
// when c is TypeScript and testdata/node_modules or node is missing.
func Command(tb testing.TB, c Client, t Target, o Options) []string {
	tb.Helper()
	var argv []string
	switch c {
	case Go:
		argv = []string{goClient(tb)}
		if o.Protocol != "" {
			argv = append(argv, "-protocol", o.Protocol)
		}
	case TypeScript:
		if o.Protocol != "" && o.Protocol != "2025-11-25" {
			tb.Fatalf("testclient: the TypeScript SDK speaks 2025-11-25 at most, not %s", o.Protocol)
		}
		argv = tsClient(tb)
	default:
		tb.Fatalf("testclient: unknown client %q", c)
	}
	flag := func(name string) string {
		if c == Go {
			return "-" + name
		}
		return "--" + name
	}
	if o.Clients > 1 {
		argv = append(argv, flag("clients"), strconv.Itoa(o.Clients))
	}
	if o.Changed {
		argv = append(argv, flag("script"), "changed")
	}
	for _, h := range o.Headers {
		argv = append(argv, flag("header"), h)
	}
	if o.SecretArg != "" {
		argv = append(argv, flag("secret-arg"), o.SecretArg)
	}
	if o.NoRoots {
		argv = append(argv, flag("no-roots"))
	}
	timeout := o.timeout()
	if c == Go {
		argv = append(argv, "-timeout", timeout.String())
	} else {
		argv = append(argv, "--timeout", strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64))
	}
	if t.URL != "" {
		return append(argv, flag("http"), t.URL)
	}
	return append(append(argv, "--"), t.Argv...)
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return defaultTimeout
}

// RunClient runs client c against t with o and returns its transcript and
// exit status. It returns when the client has exited: the client bounds
// itself by o.Timeout, and is killed a little later if it does not stop.
// It fails the test when the client cannot be run, is killed, exits with a
// status other than 0 or 1, or prints a line that is not a step.
func RunClient(tb testing.TB, c Client, t Target, o Options) Run {
	tb.Helper()
	argv := Command(tb, c, t, o)
	ctx, cancel := context.WithTimeout(tb.Context(), o.timeout()+killMargin)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Run{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && (exit.ExitCode() == 1):
		r.Status = 1
	default:
		tb.Fatalf("testclient: %s client %v: %v\nstdout:\n%s\nstderr:\n%s", c, argv, err, r.Stdout, r.Stderr)
	}
	steps, err := Parse(r.Stdout)
	if err != nil {
		tb.Fatalf("testclient: %s client %v: %v\nstderr:\n%s", c, argv, err, r.Stderr)
	}
	r.Steps = steps
	return r
}

// Parse reads a transcript: one Step per line.
func Parse(out string) ([]Step, error) {
	var steps []Step
	sc := bufio.NewScanner(bytes.NewBufferString(out))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var s Step
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil || s.Step == "" {
			return nil, fmt.Errorf("transcript line %d is not a step (%v): %s", n, err, sc.Text())
		}
		steps = append(steps, s)
	}
	return steps, sc.Err()
}

var goBuild struct {
	once sync.Once
	path string
	err  error
}

// goClient builds ./mcpclient once per test binary, into a private
// temporary file renamed into a per-user temporary folder (as testserver
// builds its servers), so that concurrent test binaries neither race nor
// leave one copy each behind.
func goClient(tb testing.TB) string {
	tb.Helper()
	goBuild.once.Do(func() {
		goBuild.path, goBuild.err = testserver.Build(testserver.Root(tb), "github.com/replayctl/replayctl/internal/testclient/mcpclient", "mcpclient")
	})
	if goBuild.err != nil {
		tb.Fatalf("testclient: %v", goBuild.err)
	}
	return goBuild.path
}

// tsClient is the argv of the TypeScript client; it skips the test when
// node or the pinned SDK is not installed.
func tsClient(tb testing.TB) []string {
	tb.Helper()
	root := testserver.Root(tb)
	sdk := filepath.Join(root, "testdata", "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		tb.Skipf("testclient: the TypeScript SDK is not installed (%s is missing): run `npm ci --prefix testdata` (make test does it)", sdk)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		tb.Skipf("testclient: node is not in PATH; the TypeScript client needs Node.js 18 or later")
	}
	return []string{node, filepath.Join(root, "testdata", "tsclient", "client.mjs")}
}
