package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordErrorsSayRecordOnce: each way a recording fails says
// "record: " once, at the start of its error, with -q and without (the
// record package's errors start with it already; the command said it
// again: "record: record: create the tape"). Without -q, the summary
// says why no tape was left: one that could not be created was not
// "nothing of the server's".
func TestRecordErrorsSayRecordOnce(t *testing.T) {
	const answer = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"t","version":"0"}}}`
	tooLong := strings.Repeat("t", 300) + ".jsonl" // a name the folder cannot hold: the tape cannot be created
	for _, tc := range []struct {
		name    string
		stdin   string
		tape    string // the tape's name in a new folder
		args    []string
		code    int
		want    string // in the error
		summary string // in the summary, without -q ("": none is wanted)
	}{
		{
			name: "stdio, the tape cannot be created", stdin: initializeLine + "\n", tape: tooLong,
			args: []string{"--", "sh", "-c", "read l; echo '" + answer + "'"},
			code: exitBadInput, want: "create the tape", summary: "the tape could not be written, so no tape was written",
		},
		{
			name: "stdio, the client's line too long", stdin: initializeLine + "\n", tape: "t.jsonl",
			args: []string{"--max-message", "64", "--", "sh", "-c", "cat >/dev/null"},
			code: exitBadInput, want: "the client sent a line longer than --max-message", summary: "the client sent a line longer",
		},
		{
			name: "stdio, the server cannot start", tape: "t.jsonl",
			args: []string{"--", "./no-such-server"},
			code: exitTarget, want: "no-such-server",
		},
		{
			name: "http, the tape cannot be created", tape: tooLong,
			args: []string{"--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp"},
			code: exitBadInput, want: "cannot write the tape",
		},
	} {
		for _, quiet := range []bool{false, true} {
			name := tc.name
			if quiet {
				name += ", -q"
			}
			t.Run(name, func(t *testing.T) {
				args := []string{"record", "-o", filepath.Join(t.TempDir(), tc.tape)}
				if quiet {
					args = append(args, "-q")
				}
				res := replayctlIn(t, tc.stdin, append(args, tc.args...)...)
				if res.code != tc.code {
					t.Errorf("exit %d, want %d\nstderr:\n%s", res.code, tc.code, res.stderr)
				}
				var errLine string
				for _, l := range strings.Split(res.stderr, "\n") {
					if strings.HasPrefix(l, "replayctl: ") {
						errLine = l
						break
					}
				}
				if !strings.HasPrefix(errLine, "replayctl: record: ") || strings.Count(errLine, "record: ") != 1 || !strings.Contains(errLine, tc.want) {
					t.Errorf("error %q, want \"replayctl: record: \" once, then %q\nstderr:\n%s", errLine, tc.want, res.stderr)
				}
				switch {
				case quiet && strings.Contains(res.stderr, "recorded "):
					t.Errorf("-q, but a summary:\n%s", res.stderr)
				case !quiet && tc.summary != "" && !strings.Contains(res.stderr, tc.summary):
					t.Errorf("summary does not say %q:\n%s", tc.summary, res.stderr)
				}
			})
		}
	}
}
