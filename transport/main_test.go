package transport

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// helperEnv makes the test binary act as a tiny stdio server (see helper).
const helperEnv = "REPLAYCTL_TRANSPORT_HELPER"

// httpClient runs the package's tests with the given poster as HTTP's
// default: go test ./transport/ -args -http-client=std.
var httpClient = flag.String("http-client", "lean", "the HTTP poster of the tests: std or lean")

func TestMain(m *testing.M) {
	flag.Parse()
	p, err := ParsePoster(*httpClient)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defaultPoster = p
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	goleak.VerifyTestMain(idleClosing{m})
}

// idleClosing closes DefaultClient's idle connections after the tests, so
// that goleak sees only goroutines that should not be there.
type idleClosing struct{ m *testing.M }

func (w idleClosing) Run() int {
	code := w.m.Run()
	DefaultClient().CloseIdleConnections()
	return code
}

// helperCommand is the argv and env of a helper server in the given mode.
func helperCommand(t testing.TB, mode string) ([]string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("test executable: %v", err)
	}
	return []string{exe, "-test.run=^$"}, []string{helperEnv + "=" + mode}
}

// bigLineBytes is the size of the line the "bigline" helper prints.
const bigLineBytes = 5 << 20

func helper(mode string) int {
	switch mode {
	case "echo": // a banner, then every stdin line back
		fmt.Println("echo server ready (not JSON)")
		in := bufio.NewReaderSize(os.Stdin, 1<<20)
		for {
			line, err := in.ReadBytes('\n')
			if len(line) > 0 {
				_, _ = os.Stdout.Write(line)
			}
			if err != nil {
				return 0
			}
		}
	case "exit3":
		fmt.Fprintln(os.Stderr, "loading config…")
		fmt.Fprintln(os.Stderr, "fatal: config.yaml: no such file")
		return 3
	case "bigline":
		var b strings.Builder
		b.WriteString(`{"jsonrpc":"2.0","method":"big","params":{"s":"`)
		b.WriteString(strings.Repeat("x", bigLineBytes))
		b.WriteString("\"}}\n")
		_, _ = io.WriteString(os.Stdout, b.String())
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "endless": // a message, then a line that never ends
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		_, _ = os.Stdout.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"text":"`)
		_ = writeEndless(os.Stdout, nil)
		return 0
	case "stubborn": // ignores stdin EOF and SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
		return 0
	case "noread": // never reads stdin
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		time.Sleep(time.Hour)
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}
