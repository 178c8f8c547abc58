// Command recordscript records a scripted client conversation with a stdio
// MCP server into a native tape; it made examples/everything.jsonl:
//
//	go run ./internal/testtools/recordscript -o examples/everything.jsonl -- testdata/node_modules/.bin/mcp-server-everything stdio
//
// The script: the handshake, tools/list, ping, then calls of the echo and
// get-sum tools, prompts/list and resources/read (one per line of -script
// when given, else the built-in one).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

func main() {
	out := flag.String("o", "", "the tape to write (required)")
	scriptFile := flag.String("script", "", "client messages, one JSON per line (default: a built-in conversation)")
	gap := flag.Duration("gap", 100*time.Millisecond, "pause between two client messages, as a client thinking")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "recordscript: want -o TAPE -- SERVER_COMMAND ARGS...")
		os.Exit(2)
	}
	msgs := builtin()
	if *scriptFile != "" {
		var err error
		if msgs, err = readScript(*scriptFile); err != nil {
			fmt.Fprintln(os.Stderr, "recordscript:", err)
			os.Exit(2)
		}
	}
	if err := run(*out, flag.Args(), msgs, *gap); err != nil {
		fmt.Fprintln(os.Stderr, "recordscript:", err)
		os.Exit(1)
	}
}

func run(out string, argv []string, msgs [][]byte, gap time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := transport.Stdio{Command: argv}.Dial(ctx, "s1")
	if err != nil {
		return err
	}
	defer conn.Close()
	w, err := tape.Create(out, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion, ProtocolVersion: "2025-06-18", Transport: "stdio", Server: &tape.Server{Command: argv}})
	if err != nil {
		return err
	}
	if err := record.Script(ctx, conn, "s1", msgs, w, 10*time.Second, record.WithPause(gap)); err != nil {
		return err
	}
	return w.Close()
}

func readScript(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			msgs = append(msgs, append([]byte(nil), sc.Bytes()...))
		}
	}
	return msgs, sc.Err()
}

func builtin() [][]byte {
	msgs := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"replayctl-example","version":"1.0.0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`,
	}
	for i := 0; i < 12; i++ {
		msgs = append(msgs,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message %d"}}}`, 10+2*i, i),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":%d,"b":%d}}}`, 11+2*i, i, 2*i))
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = []byte(m)
	}
	return out
}
