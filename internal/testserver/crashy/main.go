// Command crashy is a tiny MCP server for tests that dies on input that is
// not JSON: the server a chaos replay must report as not surviving, at the
// malformed message. Everything else it answers: initialize with its
// capabilities, any other request with {"ok":true,"method":…}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil {
			fmt.Fprintf(os.Stderr, "crashy: cannot parse %q: giving up\n", truncate(line))
			os.Exit(2)
		}
		if m.ID == nil || m.Method == "" {
			continue // notifications and answers
		}
		result := fmt.Sprintf(`{"ok":true,"method":%q}`, m.Method)
		if m.Method == "initialize" {
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"crashy","version":"1"}}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
		out.Flush()
	}
}

func truncate(b []byte) []byte {
	if len(b) > 60 {
		return b[:60]
	}
	return b
}
