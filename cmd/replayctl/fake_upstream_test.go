package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testos"
)

// fakeUpstreamEnv, set, makes the test binary a stdio MCP server that
// misbehaves as its value says (see fakeStdioUpstream);
// fakeUpstreamPIDEnv names a file it writes its pid to.
const (
	fakeUpstreamEnv    = "REPLAYCTL_TEST_FAKE_UPSTREAM"
	fakeUpstreamPIDEnv = "REPLAYCTL_TEST_FAKE_UPSTREAM_PID"
)

// rpcIn is the part of a JSON-RPC request a fake upstream reads.
type rpcIn struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// fakeStdioUpstream is a stdio MCP server for faults the real ones do not
// make. It answers initialize, takes notifications, and answers any other
// request as how says: "stubborn" answers it, and ignores SIGTERM and the
// end of its stdin (it has to be killed); "garbage" writes a line that is
// not JSON instead; "exit" exits with status 3, saying so on stderr;
// "banner" answers it, but writes a banner that is not JSON on stdout
// before its answer to initialize, as some servers do. It returns the
// exit status.
func fakeStdioUpstream(how string) int {
	if p := os.Getenv(fakeUpstreamPIDEnv); p != "" {
		_ = os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	if how == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m rpcIn
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.ID == nil {
			continue
		}
		switch {
		case m.Method == "initialize":
			if how == "banner" {
				fmt.Println("fake server 1.0 ready on stdio")
			}
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`+"\n", m.ID)
		case how == "garbage":
			fmt.Println("<html>this is not JSON-RPC</html>")
		case how == "exit":
			fmt.Fprintln(os.Stderr, "fake upstream: giving up on", m.Method)
			return 3
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"fake-answer"}]}}`+"\n", m.ID)
		}
	}
	if how == "stubborn" {
		time.Sleep(time.Hour)
	}
	return 0
}

// fakeStdioCommand returns the command of the test binary as a stdio
// upstream misbehaving as how says, killed at the test's end.
func fakeStdioCommand(t *testing.T, how string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := t.TempDir() + "/upstream.pid"
	t.Setenv(fakeUpstreamEnv, how)
	t.Setenv(fakeUpstreamPIDEnv, pidFile)
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				_ = testos.Kill(pid)
			}
		}
	})
	return []string{exe}
}
