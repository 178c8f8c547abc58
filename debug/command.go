package debug

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/replayctl/replayctl/internal/editdist"
	"github.com/replayctl/replayctl/scheduler"
)

// Command is one command of the debugger's language, as Parse reads it:
// one of Step, Continue, Pause, Seek, Break, Delete, ListBreakpoints,
// List, Print, Diff, Speed, ShowStatus, Inject, Modify, Help and Quit.
type Command interface{ command() }

type (
	// Step sends the next N client messages (Session.Step).
	Step struct{ N int }
	// Continue runs until a breakpoint, a failed answer or the end of the
	// tape (Session.Continue).
	Continue struct{}
	// Pause stops a replay that runs (Session.Pause).
	Pause struct{}
	// Seek goes to Seq, or, when Match is set, to the next client
	// message that matches it (Session.Seek, Session.SeekMatch).
	Seek struct {
		Seq   int64
		Match string
	}
	// Break adds a breakpoint (Session.Break).
	Break struct{ Spec string }
	// Delete removes a breakpoint (Session.Delete).
	Delete struct{ ID int }
	// ListBreakpoints lists the breakpoints (Session.Breakpoints).
	ListBreakpoints struct{}
	// List shows the messages around the next one, Around each side
	// (Session.List).
	List struct{ Around int64 }
	// Print shows a message or the last answer whole (Session.Next,
	// Session.Message, Session.View).
	Print struct {
		What PrintWhat
		Seq  int64 // PrintSeq's
	}
	// Diff shows expected → actual for each difference of the last
	// answer (Session.View).
	Diff struct{}
	// Speed sets the pacing of continue (Session.SetSpeed).
	Speed struct{ Speed scheduler.Speed }
	// ShowStatus shows where the replay stands (Session.Status).
	ShowStatus struct{}
	// Inject sends a message that is not on the tape (Session.Inject).
	Inject struct{ Msg []byte }
	// Modify sends Msg instead of the next message, once
	// (Session.Modify).
	Modify struct{ Msg []byte }
	// Help lists the commands (Commands).
	Help struct{}
	// Quit ends the session.
	Quit struct{}
)

// PrintWhat is what Print shows.
type PrintWhat uint8

const (
	PrintNext     PrintWhat = iota // the next client message
	PrintSeq                       // the tape's message with Print.Seq
	PrintAnswer                    // the last answer, as it came
	PrintRecorded                  // the last answer, as recorded
)

func (Step) command()            {}
func (Continue) command()        {}
func (Pause) command()           {}
func (Seek) command()            {}
func (Break) command()           {}
func (Delete) command()          {}
func (ListBreakpoints) command() {}
func (List) command()            {}
func (Print) command()           {}
func (Diff) command()            {}
func (Speed) command()           {}
func (ShowStatus) command()      {}
func (Inject) command()          {}
func (Modify) command()          {}
func (Help) command()            {}
func (Quit) command()            {}

// CommandInfo describes a command, as help lists it.
type CommandInfo struct {
	Name, Alias, Args, Help string
	parse                   func(arg string) (Command, error)
}

// commands are the debugger's commands, in the order help lists them.
var commands = []CommandInfo{
	{"step", "s", "[n]", "send the next n client messages (1), one at a time, each judged", parseStep},
	{"continue", "c", "", "run until a breakpoint, a failed answer or the end of the tape", fixed(Continue{})},
	{"pause", "", "", "stop sending (for a replay that runs)", fixed(Pause{})},
	{"seek", "", "<seq|method|expr>", "go to seq, or to the next client message that matches", parseSeek},
	{"break", "b", "<seq|method|expr>", `stop before a message: 12, tools/call, params.name == "echo"`, parseBreak},
	{"delete", "d", "<id>", "remove a breakpoint", parseDelete},
	{"breakpoints", "bl", "", "list the breakpoints", fixed(ListBreakpoints{})},
	{"list", "l", "[n]", "the messages around the current one (n each side, 3)", parseList},
	{"print", "p", "[seq|answer|recorded]", "the current message (or seq), or the last answer as it came (answer) or as recorded, as pretty JSON", parsePrint},
	{"diff", "", "", "expected → actual, whole values, for each difference of the last answer", fixed(Diff{})},
	{"speed", "", "<s>", "pacing for continue: fast, realtime, 10x, fixed:50ms, rps:5", parseSpeed},
	{"status", "", "", "where the replay stands", fixed(ShowStatus{})},
	{"inject", "", "<json>", "send a message that is not on the tape, now", parseInject},
	{"modify", "", "<json>", "send this instead of the next message, once", parseModify},
	{"help", "h", "", "this list", fixed(Help{})},
	{"quit", "q", "", "end the session (end of input does too)", fixed(Quit{})},
}

// Commands returns the debugger's commands, in the order help lists them.
func Commands() []CommandInfo { return slices.Clone(commands) }

// Parse reads one line of the command language: a command's name or
// alias, then its argument. An empty line or a comment (#) gives a nil
// Command and no error. An unknown word's error names the command it most
// likely meant (a typo, or another debugger's word for it: next, run).
func Parse(line string) (Command, error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil, nil
	}
	word, arg, _ := strings.Cut(line, " ")
	c, err := lookup(word)
	if err != nil {
		return nil, err
	}
	return c.parse(strings.TrimSpace(arg))
}

// lookup finds the command a word names.
func lookup(word string) (*CommandInfo, error) {
	for i := range commands {
		if c := &commands[i]; word == c.Name || (c.Alias != "" && word == c.Alias) {
			return c, nil
		}
	}
	if meant := commandMeant(word); meant != "" {
		return nil, fmt.Errorf("unknown command %q; did you mean %q? (type help for the list)", word, meant)
	}
	return nil, fmt.Errorf("unknown command %q; type help for the list", word)
}

// otherDebuggers are the words other debuggers (gdb, dlv, pdb) use for
// what a command here does.
var otherDebuggers = map[string]string{
	"next": "step", "n": "step", "stepi": "step",
	"run": "continue", "r": "continue", "cont": "continue", "go": "continue",
	"stop": "pause", "exit": "quit", "info": "status", "where": "status",
	"goto": "seek", "jump": "seek", "breakpoint": "break", "clear": "delete",
}

// commandMeant is the command a word that is none most likely meant: a
// typo of one ("stp") or another debugger's word for it ("next"), or "".
func commandMeant(word string) string {
	if c, ok := otherDebuggers[word]; ok {
		return c
	}
	names := make([]string, 0, len(commands))
	for _, c := range commands {
		names = append(names, c.Name)
	}
	return editdist.Closest(word, names)
}

// fixed is the parser of a command without an argument (one given is
// ignored).
func fixed(c Command) func(string) (Command, error) {
	return func(string) (Command, error) { return c, nil }
}

func parseStep(arg string) (Command, error) {
	if arg == "" {
		return Step{N: 1}, nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("step %q: want a count of 1 or more", arg)
	}
	return Step{N: n}, nil
}

func parseSeek(arg string) (Command, error) {
	if arg == "" {
		return nil, errors.New("seek: want a seq, a method or an expression")
	}
	if seq, err := strconv.ParseInt(arg, 10, 64); err == nil {
		return Seek{Seq: seq}, nil
	}
	return Seek{Match: arg}, nil
}

func parseBreak(arg string) (Command, error) {
	if arg == "" {
		return nil, errors.New("break: want a seq, a method or an expression")
	}
	return Break{Spec: arg}, nil
}

func parseDelete(arg string) (Command, error) {
	id, err := strconv.Atoi(arg)
	if err != nil {
		return nil, fmt.Errorf("delete %q: want a breakpoint id (see breakpoints)", arg)
	}
	return Delete{ID: id}, nil
}

func parseList(arg string) (Command, error) {
	if arg == "" {
		return List{Around: 3}, nil
	}
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("list %q: want a count of messages each side", arg)
	}
	return List{Around: n}, nil
}

func parsePrint(arg string) (Command, error) {
	switch arg {
	case "":
		return Print{What: PrintNext}, nil
	case "answer":
		return Print{What: PrintAnswer}, nil
	case "recorded":
		return Print{What: PrintRecorded}, nil
	}
	seq, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("print %q: want a seq", arg)
	}
	return Print{What: PrintSeq, Seq: seq}, nil
}

func parseSpeed(arg string) (Command, error) {
	s, err := scheduler.Parse(arg)
	if err != nil {
		return nil, fmt.Errorf("speed: %w", err)
	}
	return Speed{Speed: s}, nil
}

func parseInject(arg string) (Command, error) {
	if arg == "" {
		return nil, errors.New(`inject: want a JSON-RPC message, e.g. {"jsonrpc":"2.0","id":"x1","method":"ping"}`)
	}
	return Inject{Msg: []byte(arg)}, nil
}

func parseModify(arg string) (Command, error) {
	if arg == "" {
		return nil, errors.New("modify: want the JSON-RPC message to send instead of the next one")
	}
	return Modify{Msg: []byte(arg)}, nil
}

// argWords are the fixed arguments Tab offers after a command (by name).
var argWords = map[string][]string{
	"print": {"answer", "recorded"},
	"speed": {"fast", "realtime", "10x"},
}

// Complete is the Tab completion of a line: for the word before pos in
// line it returns what comes before the word, the candidates that may
// replace it (in the order Tab cycles through them), and what comes after
// pos. The first word completes to command names, in help's order; the
// argument of print and speed to their words; that of break and seek to
// the client methods on the tape (methods, when not nil: Session.Methods).
func Complete(line string, pos int, methods func() []string) (head string, candidates []string, tail string) {
	pos = min(max(pos, 0), len(line))
	before, tail := line[:pos], line[pos:]
	i := strings.LastIndexAny(before, " \t") + 1
	head, word := before[:i], before[i:]
	fields := strings.Fields(head)
	var words []string
	switch len(fields) {
	case 0:
		for _, c := range commands {
			words = append(words, c.Name)
		}
	case 1:
		c, err := lookup(fields[0])
		if err != nil {
			return head, nil, tail
		}
		words = argWords[c.Name]
		if (c.Name == "break" || c.Name == "seek") && methods != nil {
			words = methods()
		}
	}
	for _, w := range words {
		if strings.HasPrefix(w, word) {
			candidates = append(candidates, w)
		}
	}
	return head, candidates, tail
}
