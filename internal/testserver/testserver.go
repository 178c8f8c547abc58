package testserver

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// GoSDKPackage is the import path of the Go SDK's conformance server,
// pinned by the tool directive in go.mod.
const GoSDKPackage = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"

const (
	// startTimeout bounds a server's start until it listens: a cold node
	// start of server-everything took more than 30s at a load average of
	// 50 on two cores.
	startTimeout = 2 * time.Minute
	buildTimeout = 5 * time.Minute
	stopTimeout  = 5 * time.Second
)

// Root is the module's root directory: the first directory at or above
// the working directory that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testserver: working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatalf("testserver: no go.mod at or above the working directory")
		}
		dir = up
	}
}

// Everything is the argv of @modelcontextprotocol/server-everything (the
// version testdata/package.json pins) over stdio. It fails the test when
// the package is not installed.
func Everything(t testing.TB) []string {
	t.Helper()
	return []string{everythingBin(t), "stdio"}
}

// NeedEverything skips the test when server-everything cannot run here:
// its package is not installed (npm ci --prefix testdata) or node is not
// in PATH. Everything and its HTTP variants fail the test instead.
func NeedEverything(t testing.TB) {
	t.Helper()
	bin := filepath.Join(Root(t), "testdata", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("server-everything is not installed (%s): run `npm ci --prefix testdata` (make test does it)", bin)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not in PATH: server-everything needs Node.js 18 or later")
	}
}

func everythingBin(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(Root(t), "testdata", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("testserver: %s is missing: run `npm ci --prefix testdata` (make test does it)", bin)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("testserver: node is not in PATH; server-everything needs Node.js 18 or later")
	}
	return bin
}

var goSDK struct {
	once sync.Once
	path string
	err  error
}

// GoSDK is the argv of the Go SDK's conformance server over stdio. The
// binary is built once per test process (from the module cache: the
// version is pinned in go.mod, so no network is needed once downloaded).
func GoSDK(t testing.TB) []string {
	t.Helper()
	goSDK.once.Do(func() { goSDK.path, goSDK.err = buildGoSDK(Root(t)) })
	if goSDK.err != nil {
		t.Fatalf("testserver: %v", goSDK.err)
	}
	return []string{goSDK.path}
}

// buildGoSDK builds the server into a private temporary file, then renames
// it into a shared per-user directory, so that concurrent test processes
// neither race nor leave one binary each behind.
func buildGoSDK(root string) (string, error) { return build(root, GoSDKPackage, "everything-server") }

// crashy is the test server that dies on input that is not JSON.
var crashy struct {
	once sync.Once
	path string
	err  error
}

// Crashy returns the argv of a tiny stdio MCP server (./crashy) that
// answers every request and exits with status 2 on a line that is not
// JSON: for chaos tests that must see a server not survive.
func Crashy(t testing.TB) []string {
	t.Helper()
	crashy.once.Do(func() {
		crashy.path, crashy.err = build(Root(t), "github.com/replayctl/replayctl/internal/testserver/crashy", "crashy")
	})
	if crashy.err != nil {
		t.Fatalf("testserver: %v", crashy.err)
	}
	return []string{crashy.path}
}

// Build compiles the Go main package pkg of the module at root into a
// temporary folder of the user's and of that checkout as name: into a
// private temporary file first, renamed into place, so that concurrent
// test binaries neither race nor leave one copy each behind. Callers
// build once per test binary. The folder is the checkout's (named by a
// hash of root): tests of two checkouts run at once each run their own
// servers, not the other's build of them.
func Build(root, pkg, name string) (string, error) { return build(root, pkg, name) }

// build compiles a Go main package once into the user's and checkout's
// temporary folder.
func build(root, pkg, name string) (string, error) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(root))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("replayctl-testserver-%d-%08x", os.Getuid(), h.Sum32()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "build-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_ = f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, pkg)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("build %s: %v\n%s", pkg, err, out)
	}
	bin := filepath.Join(dir, name)
	if err := os.Rename(tmp, bin); err != nil {
		_ = os.Remove(tmp)
		return "", err
	}
	return bin, nil
}

// EverythingHTTP starts server-everything's Streamable HTTP transport on a
// free loopback port and returns its endpoint, http://127.0.0.1:N/mcp.
// The server is stopped when the test ends.
func EverythingHTTP(t testing.TB) string {
	t.Helper()
	return everythingOn(t, "streamableHttp", "/mcp")
}

// EverythingSSE starts server-everything's legacy HTTP+SSE transport
// (protocol 2024-11-05) and returns its SSE endpoint, http://127.0.0.1:N/sse.
func EverythingSSE(t testing.TB) string {
	t.Helper()
	return everythingOn(t, "sse", "/sse")
}

// everythingOn starts server-everything's HTTP transport mode on a free
// loopback port and returns the URL of path on it.
func everythingOn(t testing.TB, mode, path string) string {
	t.Helper()
	bin := everythingBin(t)
	addr := start(t, func(port int) *exec.Cmd {
		cmd := exec.Command(bin, mode)
		cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
		return cmd
	})
	return "http://" + addr + path
}

// GoSDKHTTP starts the Go SDK's conformance server over Streamable HTTP,
// stateful (it hands out session ids), and returns its endpoint.
func GoSDKHTTP(t testing.TB) string {
	t.Helper()
	return goSDKHTTP(t, false)
}

// GoSDKHTTPStateless starts the Go SDK's conformance server over
// Streamable HTTP in its stateless mode (no session ids: every POST stands
// alone, so that a plain HTTP load tool such as wrk can call a tool
// without a handshake) and returns its endpoint.
func GoSDKHTTPStateless(t testing.TB) string {
	t.Helper()
	return goSDKHTTP(t, true)
}

func goSDKHTTP(t testing.TB, stateless bool) string {
	t.Helper()
	bin := GoSDK(t)[0]
	addr := start(t, func(port int) *exec.Cmd {
		return exec.Command(bin, "-http", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), "-stateless="+strconv.FormatBool(stateless))
	})
	return "http://" + addr + "/"
}

// start runs a server on a free port and waits until it accepts
// connections. A port taken in between (another test) is retried.
func start(t testing.TB, mk func(port int) *exec.Cmd) string {
	t.Helper()
	var lastErr error
	for range 3 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("testserver: find a free port: %v", err)
		}
		addr, err := startOn(t, mk(port), port)
		if err == nil {
			return addr
		}
		lastErr = err
	}
	t.Fatalf("testserver: %v", lastErr)
	return ""
}

func startOn(t testing.TB, cmd *exec.Cmd, port int) (string, error) {
	var out bytes.Buffer // guarded by the exec package until Wait returns
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %v: %w", cmd.Args, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case err := <-exited:
			return "", fmt.Errorf("%v exited before listening on %s: %v\n%s", cmd.Args, addr, err, out.String())
		default:
		}
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = conn.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			err := <-exited
			return "", fmt.Errorf("%v did not listen on %s within %s (%v)\n%s", cmd.Args, addr, startTimeout, err, out.String())
		}
		time.Sleep(50 * time.Millisecond) // polling an outside process
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("output of %v:\n%s", cmd.Args, out.String())
		}
	})
	return addr, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// volatile is the test server whose answers change from call to call.
var volatile struct {
	once sync.Once
	path string
	err  error
}

// Volatile returns the argv of the volatile test server (./volatile,
// package volatilemcp) over stdio, with args appended: -delay D answers
// every tools/call after D, -lang L changes greet's language, -http ADDR
// serves Streamable HTTP instead (-require-header K:V: 401 without it).
func Volatile(t testing.TB, args ...string) []string {
	t.Helper()
	volatile.once.Do(func() {
		volatile.path, volatile.err = build(Root(t), "github.com/replayctl/replayctl/internal/testserver/volatile", "volatile")
	})
	if volatile.err != nil {
		t.Fatalf("testserver: %v", volatile.err)
	}
	return append([]string{volatile.path}, args...)
}

// VolatileHTTP starts the volatile test server over Streamable HTTP on a
// free loopback port, with args (see Volatile), and returns its
// endpoint, http://127.0.0.1:N/mcp. It is stopped when the test ends.
func VolatileHTTP(t testing.TB, args ...string) string {
	t.Helper()
	argv := Volatile(t, args...)
	addr := start(t, func(port int) *exec.Cmd {
		return exec.Command(argv[0], append([]string{"-http", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}, argv[1:]...)...)
	})
	return "http://" + addr + "/mcp"
}
