package debug

import (
	"reflect"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/scheduler"
)

func TestParseCommand(t *testing.T) {
	tenX, err := scheduler.Parse("10x")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line string
		want Command
		err  string
	}{
		{"", nil, ""},
		{"   ", nil, ""},
		{"# a comment", nil, ""},
		{"step", Step{N: 1}, ""},
		{"s 3", Step{N: 3}, ""},
		{"  c  ", Continue{}, ""},
		{"b tools/call", Break{Spec: "tools/call"}, ""},
		{`break method == "ping" && seq > 3`, Break{Spec: `method == "ping" && seq > 3`}, ""},
		{"bl", ListBreakpoints{}, ""},
		{"d 2", Delete{ID: 2}, ""},
		{"l", List{Around: 3}, ""},
		{"list 0", List{Around: 0}, ""},
		{"p 4", Print{What: PrintSeq, Seq: 4}, ""},
		{"p", Print{What: PrintNext}, ""},
		{"print answer", Print{What: PrintAnswer}, ""},
		{"print recorded", Print{What: PrintRecorded}, ""},
		{"seek 12", Seek{Seq: 12}, ""},
		{"seek tools/call", Seek{Match: "tools/call"}, ""},
		{"speed 10x", Speed{Speed: tenX}, ""},
		{"status", ShowStatus{}, ""},
		{"diff", Diff{}, ""},
		{"pause", Pause{}, ""},
		{"h", Help{}, ""},
		{`inject {"jsonrpc":"2.0","id":1,"method":"ping"}`, Inject{Msg: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, ""},
		{`modify {"jsonrpc":"2.0","id":1,"method":"ping"}`, Modify{Msg: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, ""},
		{"q", Quit{}, ""},
		{"bogus 1", nil, `unknown command "bogus"`},
		{"steps", nil, `unknown command "steps"`},
		{"stp", nil, `unknown command "stp"; did you mean "step"?`},
		{"next", nil, `unknown command "next"; did you mean "step"?`},
		{"run", nil, `unknown command "run"; did you mean "continue"?`},
		// The arguments are checked as the line is read.
		{"step 0", nil, `step "0": want a count of 1 or more`},
		{"s x", nil, `step "x": want a count of 1 or more`},
		{"seek", nil, "seek: want a seq, a method or an expression"},
		{"break", nil, "break: want a seq, a method or an expression"},
		{"delete x", nil, `delete "x": want a breakpoint id (see breakpoints)`},
		{"list -1", nil, `list "-1": want a count of messages each side`},
		{"print x", nil, `print "x": want a seq`},
		{"speed bogus", nil, "speed: "},
		{"inject", nil, "inject: want a JSON-RPC message"},
		{"modify", nil, "modify: want the JSON-RPC message to send instead of the next one"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			c, err := Parse(tt.line)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if tt.err != "" {
				if !strings.Contains(gotErr, tt.err) || c != nil {
					t.Fatalf("got %#v, error %q, want no command and an error with %q", c, gotErr, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v, want none", err)
			}
			if !reflect.DeepEqual(c, tt.want) {
				t.Errorf("got %#v, want %#v", c, tt.want)
			}
		})
	}
}

// Every command has help, and names and aliases are unique; each name and
// alias reads to a command.
func TestCommandTable(t *testing.T) {
	args := map[string]string{"seek": "3", "break": "3", "delete": "1", "speed": "fast", "inject": "{}", "modify": "{}"}
	seen := map[string]bool{}
	for _, c := range Commands() {
		for _, n := range []string{c.Name, c.Alias} {
			if n == "" {
				continue
			}
			if seen[n] {
				t.Errorf("%q names two commands", n)
			}
			seen[n] = true
			if cmd, err := Parse(strings.TrimSpace(n + " " + args[c.Name])); err != nil || cmd == nil {
				t.Errorf("%q reads to %#v, %v: want a command", n, cmd, err)
			}
		}
		if c.Help == "" || c.parse == nil {
			t.Errorf("command %q has no help or no parser", c.Name)
		}
	}
	for _, want := range []string{"step", "s", "continue", "c", "pause", "seek", "break", "b", "delete", "d", "breakpoints", "bl", "list", "l", "print", "p", "diff", "speed", "status", "inject", "modify", "quit", "q", "help"} {
		if !seen[want] {
			t.Errorf("no command %q", want)
		}
	}
}
