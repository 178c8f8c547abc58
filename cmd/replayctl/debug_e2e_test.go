package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/debug"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/transport"
)

// replayctlIn runs the built binary from the repository root with stdin.
func replayctlIn(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	res, _ := runBinary(t, stdin, args...)
	return res
}

// runBinary runs the built binary from the repository root with stdin,
// and returns what it did and its process state; a panic fails the test.
func runBinary(t *testing.T, stdin string, args ...string) (result, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	return runCmd(t, cmd, stdin, args), cmd.ProcessState
}

// runCmd runs cmd (the binary with args, or a launcher of it) in the
// repository's root with stdin, and returns what it did.
func runCmd(t *testing.T, cmd *exec.Cmd, stdin string, args []string) result {
	t.Helper()
	cmd.Dir = "../.."
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	if strings.Contains(errb.String(), "goroutine ") && strings.Contains(errb.String(), "panic") {
		t.Fatalf("replayctl %v panicked:\n%s", args, errb.String())
	}
	return result{code, out.String(), errb.String()}
}

// tapeLine is what the tests need of a tape's message line.
type tapeLine struct {
	Seq int64  `json:"seq"`
	Dir string `json:"dir"`
	Msg struct {
		Method string `json:"method"`
	} `json:"msg"`
}

// seqsOf reads a tape and returns the seqs of its client messages with
// each method, in order.
func seqsOf(t *testing.T, path string) map[string][]int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seqs := map[string][]int64{}
	for _, l := range strings.Split(string(b), "\n") {
		var m tapeLine
		if !strings.Contains(l, `"type":"message"`) || json.Unmarshal([]byte(l), &m) != nil || m.Dir != "c2s" {
			continue
		}
		seqs[m.Msg.Method] = append(seqs[m.Msg.Method], m.Seq)
	}
	return seqs
}

// everythingTee records a tape from server-everything and returns it,
// the target args that replay it against a fresh server-everything whose
// stdin is copied to the returned log, and the log's path.
func everythingTee(t *testing.T) (tapePath string, target []string, logPath string) {
	t.Helper()
	argv := testserver.Everything(t)
	tapePath = recordTape(t, transport.Stdio{Command: argv}, "stdio", script("echo", `{"message":"hello, replay"}`, `{"message":"second"}`))
	logPath = filepath.Join(t.TempDir(), "RECV.log")
	target = []string{"--", "sh", "-c", `tee -a "$0" | exec "$1" stdio`, logPath, argv[0]}
	return tapePath, target, logPath
}

// received reads what the server was sent: method (or "answer") and the
// params, one per line.
func received(t *testing.T, logPath string) (methods []string, lines []string) {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("the server received nothing: %v", err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Method string `json:"method"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("server received a line that is not JSON: %q", l)
		}
		if m.Method == "" {
			m.Method = "answer"
		}
		methods = append(methods, m.Method)
		lines = append(lines, l)
	}
	return methods, lines
}

var sentSeq = regexp.MustCompile(`(?m)^→ seq (\d+) `)

// sections splits a piped session's stdout at the echoed commands and
// returns, for each, the command and the seqs it sent ("" for what came
// before the first command: the handshake).
func sections(stdout string) (cmds []string, sent [][]string) {
	cmds, sent = []string{""}, [][]string{nil}
	for _, l := range strings.Split(stdout, "\n") {
		if c, ok := strings.CutPrefix(l, prompt); ok {
			cmds = append(cmds, c)
			sent = append(sent, nil)
			continue
		}
		if m := sentSeq.FindStringSubmatch(l); m != nil {
			sent[len(sent)-1] = append(sent[len(sent)-1], m[1])
		}
	}
	return cmds, sent
}

// TestDebugScriptAgainstServer drives `replayctl debug` through a pipe
// against server-everything and checks, from the server's side, exactly
// what arrived, and from the output which command sent it.
func TestDebugScriptAgainstServer(t *testing.T) {
	tapePath, target, logPath := everythingTee(t)
	seqs := seqsOf(t, tapePath)
	list, ping, call := seqs["tools/list"][0], seqs["ping"][0], seqs["tools/call"][0]
	script := fmt.Sprintf("step\nbreak tools/call\ncontinue\nprint\nstep\nseek %d\nstep\nstatus\nquit\nstep\n", list)
	res := replayctlIn(t, script, append([]string{"debug", tapePath}, target...)...)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}

	methods, lines := received(t, logPath)
	want := []string{"initialize", "notifications/initialized", "tools/list", "ping", "tools/call", "tools/list"}
	if !slices.Equal(methods, want) {
		t.Fatalf("server received %v, want %v\n%s", methods, want, res.stdout)
	}
	if !strings.Contains(lines[4], "hello, replay") {
		t.Errorf("the tools/call sent was %s, want the first one (hello, replay)", lines[4])
	}

	cmds, sent := sections(res.stdout)
	s := func(seq int64) string { return fmt.Sprint(seq) }
	wantCmds := []string{"", "step", "break tools/call", "continue", "print", "step", fmt.Sprintf("seek %d", list), "step", "status", "quit"}
	wantSent := [][]string{{s(seqs["initialize"][0]), s(seqs["notifications/initialized"][0])}, {s(list)}, nil, {s(ping)}, nil, {s(call)}, nil, {s(list)}, nil, nil}
	if !slices.Equal(cmds, wantCmds) {
		t.Fatalf("commands read %q, want %q (nothing after quit)\n%s", cmds, wantCmds, res.stdout)
	}
	for i := range wantSent {
		if !slices.Equal(sent[i], wantSent[i]) {
			t.Errorf("after %q: sent seqs %v, want %v", cmds[i], sent[i], wantSent[i])
		}
	}
	for _, want := range []string{
		"⏸ breakpoint 1 (method tools/call)",
		`"message": "hello, replay"`, // print, pretty
		"← {\"content\":[{\"type\":\"text\",\"text\":\"Echo: hello, replay\"}]}",
		"✓ passed",
		fmt.Sprintf("paused before seq %d", seqs["ping"][0]),
		"summary: 5 checked, 5 passed, 0 failed",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
}

// --step-handshake stops before seq 0: one step sends only initialize.
func TestDebugStepHandshake(t *testing.T) {
	tapePath, target, logPath := everythingTee(t)
	res := replayctlIn(t, "status\nstep\n", append([]string{"debug", tapePath, "--step-handshake"}, target...)...)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	methods, _ := received(t, logPath)
	if want := []string{"initialize"}; !slices.Equal(methods, want) {
		t.Fatalf("server received %v, want %v\n%s", methods, want, res.stdout)
	}
	cmds, sent := sections(res.stdout)
	if len(cmds) != 3 || len(sent[0]) != 0 || len(sent[1]) != 0 || !slices.Equal(sent[2], []string{"0"}) {
		t.Errorf("sent by command %q: %v, want nothing, nothing, [0]\n%s", cmds, sent, res.stdout)
	}
	if !strings.Contains(res.stdout, "paused before seq 0") {
		t.Errorf("status does not say paused before seq 0:\n%s", res.stdout)
	}
}

func TestDebugEndOfInputAndBadCommands(t *testing.T) {
	tests := []struct {
		name, stdin string
		want        []string
	}{
		{"empty input", "", []string{"next: seq 3 c2s tools/list", "summary: 1 checked, 1 passed, 0 failed"}},
		{"bad commands go on", "bogus\nstep x\ndelete 9\nseek\nspeed warp\ninject {nope\nstep\n", []string{
			`error: unknown command "bogus"`,
			`error: step "x": want a count of 1 or more`,
			"error: delete 9: ",
			"error: seek: want a seq",
			"error: speed: ",
			"error: inject into session",
			"→ seq 3 tools/list",
			"summary: 2 checked, 2 passed, 0 failed",
		}},
		{"no trailing newline", "step", []string{"→ seq 3 tools/list", "summary: 2 checked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := replayctlIn(t, tt.stdin, "debug", "examples/quickstart.jsonl")
			if res.code != 0 {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, res.stdout)
				}
			}
		})
	}
}

// A changed answer: step stops there (on-error pause), shows the recorded
// answer and the difference; diff lists it; the exit status is 1.
func TestDebugFailedAnswer(t *testing.T) {
	b, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), `"text":"Echo: hello, replay"`, `"text":"Echo: CHANGED"`, 1)
	if changed == string(b) {
		t.Fatal("quickstart tape has no echo answer to change")
	}
	mockTape := filepath.Join(t.TempDir(), "changed.jsonl")
	if err := os.WriteFile(mockTape, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctlIn(t, "continue\ndiff\nstatus\n", "debug", "examples/quickstart.jsonl", "--mock-tape", mockTape)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, w := range []string{
		`✗ failed: result.content[0].text: "Echo: hello, replay" → "Echo: CHANGED"`,
		`recorded ← {"content":[{"type":"text","text":"Echo: hello, replay"}]}`,
		"⏸ error at seq 5",
		`  result.content[0].text: "Echo: hello, replay" → "Echo: CHANGED"`,
		"paused before seq 7",
		"1 failed",
	} {
		if !strings.Contains(res.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, res.stdout)
		}
	}
	if strings.Contains(res.stdout, "→ seq 7") {
		t.Errorf("continue went past the failed message:\n%s", res.stdout)
	}
}

func TestDebugUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"debug"}, "missing TAPE"},
		{[]string{"debug", "examples/quickstart.jsonl", "--on-error", "explode"}, "--on-error"},
		{[]string{"debug", "examples/quickstart.jsonl", "--control", "tcp:1"}, "want unix:"},
		{[]string{"debug", "examples/quickstart.jsonl", "--speed", "stepped"}, "debug steps by itself"},
		{[]string{"debug", "no/such/tape.jsonl"}, "no/such/tape.jsonl"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			res := replayctlIn(t, "", tt.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("got exit %d, stderr %q; want exit 2 and %q", res.code, res.stderr, tt.want)
			}
		})
	}
}

// The control socket drives a debug session of a real server while the
// REPL waits for input: a step over the socket sends exactly one message.
func TestDebugControlSocket(t *testing.T) {
	tapePath, target, logPath := everythingTee(t)
	seqs := seqsOf(t, tapePath)
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	cmd := exec.Command(binary, append([]string{"debug", tapePath, "--control", "unix:" + sock}, target...)...)
	cmd.Dir = "../.."
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	errLines := bufio.NewScanner(stderr)
	for errLines.Scan() && !strings.HasPrefix(errLines.Text(), "control socket: ") {
	}
	go io.Copy(io.Discard, stderr) // the rest of stderr: the pipe must not fill
	// The REPL has replayed the handshake when it says what comes next.
	outLines := bufio.NewReader(stdoutPipe)
	for {
		l, err := outLines.ReadString('\n')
		if err != nil {
			t.Fatalf("debug ended before the handshake was done: %v", err)
		}
		if strings.HasPrefix(l, "next: ") {
			break
		}
	}
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(outLines); rest <- string(b) }()

	c := dialCtl(t, sock)
	do := c.do
	list := seqs["tools/list"][0]
	r := do(1, `{"id":1,"cmd":"wait"}`)
	if !r.OK || r.Status.State != "paused" {
		t.Fatalf("wait: %+v, want paused", r)
	}
	r = do(2, `{"id":2,"cmd":"step"}`)
	if !r.OK || len(r.Results) != 1 || r.Results[0].Seq != list || r.Results[0].Verdict != "passed" {
		t.Fatalf("step: %+v, want seq %d passed", r, list)
	}
	r = do(3, `{"id":3,"cmd":"bogus"}`)
	if r.OK || !strings.Contains(r.Error, "unknown command") {
		t.Fatalf("bogus: %+v, want an error", r)
	}
	r = do(4, `{"id":4,"cmd":"status"}`)
	if !r.OK || r.Status.State != "paused" {
		t.Fatalf("status: %+v", r)
	}
	methods, _ := received(t, logPath)
	if want := []string{"initialize", "notifications/initialized", "tools/list"}; !slices.Equal(methods, want) {
		t.Fatalf("server received %v, want %v", methods, want)
	}
	if c.events == 0 {
		t.Errorf("no status events pushed during a step")
	}

	// End of the REPL's input ends the session cleanly.
	stdin.Close()
	out := <-rest
	if err := cmd.Wait(); err != nil {
		t.Fatalf("debug after end of input: %v\n%s", err, out)
	}
	if !strings.Contains(out, "summary: 2 checked, 2 passed, 0 failed") {
		t.Errorf("stdout lacks the summary:\n%s", out)
	}
}

// A target that dies ends the session with exit status 3 and says why.
func TestDebugTargetDies(t *testing.T) {
	res := replayctlIn(t, "step\nstep\n", "debug", "examples/quickstart.jsonl", "--", "sh", "-c", "read line; echo gone >&2; exit 7")
	if res.code != 3 || !strings.Contains(res.stderr, "target failed") {
		t.Fatalf("got exit %d, stderr %q; want exit 3 and the target's failure\nstdout:\n%s", res.code, res.stderr, res.stdout)
	}
}

// TestDebugContinueAtSpeedAfterHandshake: a debugger at 10x goes on right
// after the live handshake (its clock is anchored on the answer), not
// after the whole --timeout.
func TestDebugContinueAtSpeedAfterHandshake(t *testing.T) {
	start := time.Now()
	res := replayctlIn(t, "continue\n", "debug", "examples/quickstart.jsonl", "--speed", "10x", "--timeout", "3m")
	if res.code != 0 || !strings.Contains(res.stdout, "8 passed") {
		t.Fatalf("exit %d, want 0 and 8 passed\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	// The tape lasts 1.8s, 180ms at 10x; waiting out the timeout would
	// take 3 minutes. The bound is a third of that: far from what a
	// loaded machine adds to 180ms, far below the timeout.
	if took := time.Since(start); took > time.Minute {
		t.Errorf("took %s: the schedule waited for the timeout after the handshake", took)
	}
}

// timedLine is a line of output and when it was read.
type timedLine struct {
	at   time.Time
	text string
}

// debugTimed runs `replayctl debug` with the commands on stdin (kept open
// until the output ends, so end of input does not cut continue short)
// and returns stdout's lines with when each was read.
func debugTimed(t *testing.T, commands string, args ...string) []timedLine {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"debug"}, args...)...)
	cmd.Dir = "../.."
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(stdin, commands); err != nil {
		t.Fatal(err)
	}
	var lines []timedLine
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, timedLine{time.Now(), sc.Text()})
		if strings.HasPrefix(sc.Text(), "■ end of the tape") {
			stdin.Close()
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("debug %v: %v\nstderr:\n%s", args, err, errb.String())
	}
	return lines
}

// TestDebugContinueStreams: continue prints each message as it is judged,
// not all at once when the replay stops, so a paced replay is seen going.
func TestDebugContinueStreams(t *testing.T) {
	lines := debugTimed(t, "continue\n", "examples/quickstart.jsonl", "--speed", "fixed:250ms")
	var sent []timedLine
	var end time.Time
	after := false
	for _, l := range lines {
		switch {
		case l.text == prompt+"continue":
			after = true
		case after && sentSeq.MatchString(l.text):
			sent = append(sent, l)
		case strings.HasPrefix(l.text, "■ end of the tape"):
			end = l.at
		}
	}
	if len(sent) < 4 || end.IsZero() {
		t.Fatalf("got %d messages sent by continue and end %v, want 4 or more and the end", len(sent), end)
	}
	// At 250ms a message, the first is printed a second or more before the end.
	if gap := end.Sub(sent[0].at); gap < 500*time.Millisecond {
		t.Errorf("first message printed %s before the end, want 500ms or more: continue holds its output back", gap)
	}
}

// TestDebugWholeAnswer: a long changed answer is shown whole by print
// answer, print recorded and diff, wrapped to 80 columns (the width when
// the output is not a terminal); every line fits.
func TestDebugWholeAnswer(t *testing.T) {
	b, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	long := "Echo: " + strings.Repeat("0123456789", 20) + " END"
	changed := strings.Replace(string(b), `"text":"Echo: hello, replay"`, `"text":"`+long+`"`, 1)
	if changed == string(b) {
		t.Fatal("quickstart tape has no echo answer to change")
	}
	mockTape := filepath.Join(t.TempDir(), "changed.jsonl")
	if err := os.WriteFile(mockTape, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctlIn(t, "continue\nprint answer\nprint recorded\ndiff\nprint 5\nhelp\n", "debug", "examples/quickstart.jsonl", "--mock-tape", mockTape)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for i, l := range strings.Split(res.stdout, "\n") {
		if n := len([]rune(l)); n > defaultWidth {
			t.Errorf("line %d is %d runes, want %d at most: %q", i+1, n, defaultWidth, l)
		}
	}
	cmds := map[string]string{}
	cur := ""
	for _, l := range strings.Split(res.stdout, "\n") {
		if c, ok := strings.CutPrefix(l, prompt); ok {
			cur = c
			continue
		}
		cmds[cur] += l + "\n"
	}
	// Joined again without the wrapping and the spaces, each shows its
	// whole value.
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, tt := range []struct{ cmd, want string }{
		{"print answer", `"text":"` + long + `"`},
		{"print recorded", `"text":"Echo: hello, replay"`},
		{"diff", `result.content[0].text: "Echo: hello, replay" → "` + long + `"`},
	} {
		if !strings.Contains(squeeze(cmds[tt.cmd]), squeeze(tt.want)) {
			t.Errorf("%s: got\n%s\nwant the whole %s", tt.cmd, cmds[tt.cmd], tt.want)
		}
	}
	if !strings.HasPrefix(cmds["print answer"], "answer to seq 5 tools/call  failed\n") {
		t.Errorf("print answer: got\n%s\nwant it headed by the seq and the verdict", cmds["print answer"])
	}
}

// TestDebugControlDuringHandshake: a command sent over the control socket
// while the handshake is still being replayed (the server answers
// initialize after 1.5s, not as recorded: --on-error continue lets the
// handshake go on) waits for it, and then steps the first message after
// it; it is never refused as "a step is already in progress".
func TestDebugControlDuringHandshake(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "ctl.sock")
	args := append([]string{binary, "debug", "examples/quickstart.jsonl", "--control", "unix:" + sock, "--on-error", "continue", "--"}, testserver.Slow(t, "-init-delay", "1500ms")...)
	p := startProc(t, args...)
	p.waitOutput(p.stderr, "control socket: ", 30*time.Second)

	start := time.Now()
	r := dialCtl(t, sock).do(1, `{"id":1,"cmd":"step"}`)
	if !r.OK || len(r.Results) != 1 || r.Results[0].Seq != 3 {
		t.Fatalf("step sent during the handshake: got %+v, want ok and seq 3 (the message after the handshake)", r)
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("step answered after %s, before the handshake (1.5s) was done", took)
	}
	p.stdin.Close()
	p.wait(30 * time.Second)
	if strings.Contains(p.stdout.String(), "already in progress") {
		t.Errorf("stdout says a step was in progress:\n%s", p.stdout)
	}
}

// An injected request is answered without using up the tape: a later
// tape message with the same method and params still gets its recorded
// answer from the built-in mock, as it does from the real server.
func TestDebugInjectKeepsTheTapesAnswers(t *testing.T) {
	tapePath, target, _ := everythingTee(t)
	script := "inject {\"jsonrpc\":\"2.0\",\"id\":50,\"method\":\"ping\"}\n" +
		"inject {\"jsonrpc\":\"2.0\",\"id\":51,\"method\":\"tools/list\"}\n" +
		"continue\n"
	for _, tt := range []struct {
		name   string
		target []string
	}{{"mock", nil}, {"server", target}} {
		t.Run(tt.name, func(t *testing.T) {
			res := replayctlIn(t, script, append([]string{"debug", tapePath}, tt.target...)...)
			if res.code != 0 || !strings.Contains(res.stdout, " 0 failed") || strings.Contains(res.stdout, "✗") {
				t.Fatalf("exit %d, want 0 and nothing failed\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			if n := strings.Count(res.stdout, "· injected: not on the tape"); n != 2 {
				t.Errorf("%d injected answers shown, want 2:\n%s", n, res.stdout)
			}
		})
	}
}

// After modify, step labels the message with the method sent, not the
// tape's; a success turned error differs as a whole answer, said so.
func TestDebugModifyShowsWhatWasSent(t *testing.T) {
	script := `modify {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}` + "\nstep\ndiff\n"
	res := replayctlIn(t, script, "debug", "examples/quickstart.jsonl")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1 (the answer differs)\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		`→ seq 3 tools/call (tape: tools/list) {"name":"echo"`,
		"✗ failed: $ (the whole answer, success→error): ",
		"  $ (the whole answer, success→error): ",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	if strings.Contains(res.stdout, "→ seq 3 tools/list {\"name\"") {
		t.Errorf("the step is labelled with the tape's method:\n%s", res.stdout)
	}
}

// A breakpoint that no message of the tape can hit is kept (it may be
// meant for injected messages) with a warning saying why: a method the
// tape lacks (and the one meant, for a typo), a seq past its end.
func TestDebugBreakWarnsOfNothingToStopAt(t *testing.T) {
	res := replayctlIn(t, "break tools/lst\nbreak 99\nbreak tools/list\nbreak 17\nbreakpoints\n", "debug", "examples/quickstart.jsonl")
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"breakpoint 1: method tools/lst\nwarning: no message of the tape has method tools/lst (did you mean tools/list?)\n",
		"breakpoint 2: seq 99\nwarning: the tape has 18 messages: breakpoint 99 is past its end\n",
		"breakpoint 3: method tools/list\n(replayctl)",
		"breakpoint 4: seq 17\n(replayctl)",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	if n := strings.Count(res.stdout, "warning:"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, res.stdout)
	}
}

// help through a pipe fits 80 columns, breaking between words, each
// description going on under its own column, whole.
func TestDebugHelpWrapsInItsColumn(t *testing.T) {
	res := replayctlIn(t, "help\n", "debug", "examples/quickstart.jsonl")
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	_, after, _ := strings.Cut(res.stdout, prompt+"help\n")
	body, _, _ := strings.Cut(after, "summary:")
	const col = 35 // "  " + 32 columns of name + " "
	descs := map[string]string{}
	var name string
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if n := len([]rune(l)); n > defaultWidth {
			t.Errorf("line of %d columns, want %d at most: %q", n, defaultWidth, l)
		}
		if !strings.HasPrefix(l, strings.Repeat(" ", col)) {
			name = strings.Fields(l)[0]
			descs[name] = strings.Join(strings.Fields(string([]rune(l)[min(col, len([]rune(l))):])), " ")
			continue
		}
		descs[name] += " " + strings.Join(strings.Fields(l), " ")
	}
	for _, c := range debug.Commands() {
		if got := strings.TrimSpace(descs[c.Name]); got != c.Help {
			t.Errorf("help of %s reads %q, want %q, each line under column %d\n%s", c.Name, got, c.Help, col, body)
		}
	}
}

// A tape with a bad line is refused by debug at once (exit 2, naming the
// line), whatever the commands: quitting at once was exit 1 with "0
// checked" and no word of the line, a moment later exit 2.
func TestDebugBadLineExitsTwo(t *testing.T) {
	good, err := os.ReadFile("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	lines[3] = strings.Replace(lines[3], `"seq":2,`, `"seq":"x",`, 1) // line 4, the handshake's notification
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, stdin := range []string{"", "quit\n", "step\nstatus\n"} {
		t.Run(fmt.Sprintf("%q", stdin), func(t *testing.T) {
			res := replayctlIn(t, stdin, "debug", bad)
			if res.code != 2 || !strings.Contains(res.stderr, "bad.jsonl line 4") || !strings.Contains(res.stderr, `field "seq"`) {
				t.Fatalf("exit %d, stderr %q, stdout %q; want 2 and the error of line 4", res.code, res.stderr, res.stdout)
			}
			if res.stdout != "" {
				t.Errorf("stdout %q: want nothing, the tape refused before the session", res.stdout)
			}
		})
	}
}
