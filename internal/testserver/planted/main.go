// Command planted is a stdio MCP server for the tests of package shrink,
// with a bug planted where a test can find it. It answers initialize,
// tools/list, and every tools/call with {"content":[{"type":"text",
// "text":"ok NAME"}]}, any other request with {}. Its flags plant the bug:
//
//	-abc VALUE     exit (status 3) when this session has called tool a,
//	               then b, then c with arguments.mode VALUE
//	-flaky FILE    with -abc: exit only one time in three, seeded by
//	               -seed and a count kept in FILE (one byte appended per
//	               trigger), so that the same test repeats the same draws
//	-dup TOOL      exit when a tools/call of TOOL arrives under an id this
//	               session has already seen (a chaos duplicate or
//	               duplicate-id fault): the double-charge bug
//
// Every exit says why on stderr.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	abc := flag.String("abc", "", "exit after tools a, b, then c with arguments.mode equal to this")
	flaky := flag.String("flaky", "", "with -abc: exit one time in three, counting triggers in this file")
	seed := flag.Uint64("seed", 1, "the seed of -flaky's draws")
	dup := flag.String("dup", "", "exit when a tools/call of this tool repeats an id")
	flag.Parse()

	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	seen := map[string]bool{}
	step := 0 // of a, b, c: how many came, in order
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Mode string `json:"mode"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if m.ID == nil || m.Method == "" {
			continue // notifications and answers
		}
		id := string(m.ID)
		repeated := seen[id]
		seen[id] = true
		result := `{}`
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"planted","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			name := m.Params.Name
			if *dup != "" && name == *dup && repeated {
				die("tools/call %s: id %s came twice", name, id)
			}
			if *abc != "" {
				switch {
				case step == 0 && name == "a", step == 1 && name == "b":
					step++
				case step == 2 && name == "c" && m.Params.Arguments.Mode == *abc:
					if *flaky == "" || draw(*flaky, *seed) {
						die("tools/call c with mode %q after a and b", *abc)
					}
				}
			}
			result = fmt.Sprintf(`{"content":[{"type":"text","text":"ok %s"}]}`, name)
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
		out.Flush()
	}
}

// draw appends a byte to the count file and says whether this trigger
// fails: one in three, by a SplitMix64 hash of the seed and the count.
func draw(path string, seed uint64) bool {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		die("-flaky %s: %v", path, err)
	}
	if _, err := f.Write([]byte{'.'}); err != nil {
		die("-flaky %s: %v", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		die("-flaky %s: %v", path, err)
	}
	f.Close()
	z := seed + uint64(fi.Size())*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return z%3 == 0
}

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "planted: "+format+"\n", args...)
	os.Exit(3)
}
