package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/internal/stdpipe"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/serve"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/ui"
)

// recordFlags are the flags every recording mode shares (stdio here; the
// HTTP proxy adds its own): where the tape goes and what its header says.
type recordFlags struct {
	out         string
	force       bool
	quiet       bool
	session     string
	tags        []string
	maxMessage  byteSize
	stopTimeout time.Duration
	drain       time.Duration // stdin a file: the wait for the answers due at its end
	// redaction builds the Redactor of --redact-* (addRedactFlags);
	// redactor is what it built, set by check.
	redaction func() (*tape.Redactor, error)
	redactor  *tape.Redactor
	// unlock releases TAPE.journal.lock, taken by check when --force
	// overwrites a tape (see serve --mode new); nil when none was taken.
	unlock func()
	// rec is the recorder once made, for the words of a second Ctrl-C
	// (which file holds what was recorded so far); abandoned says a
	// second Ctrl-C came (none may be made then). recMu guards both.
	recMu     sync.Mutex
	rec       *record.Recorder
	abandoned bool
	// ui are --ui's flags; view the page they opened (nil: none).
	ui   uiFlags
	view *browserView
	// upstreamDown is set by recordHTTP when the upstream could not be
	// reached at the start; read by a second signal's exit (recordLeft).
	upstreamDown atomic.Bool
	// client says when the stdio client's input (stdin) ended.
	client *endReader
}

func (f *recordFlags) register(fl *pflag.FlagSet) {
	fl.StringVarP(&f.out, "output", "o", "", "the tape to write, e.g. session.jsonl (required; a name with no extension is refused); refused if it exists, unless --force")
	fl.BoolVar(&f.force, "force", false, "overwrite the tape given by -o if it exists")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print no summary on stderr")
	fl.StringVar(&f.session, "session", "s1", "the name of the recorded session in the tape")
	fl.StringArrayVar(&f.tags, "tag", nil, "a tag k=v for the tape's header (repeatable)")
	addKnob(fl, "record", "max-message", &f.maxMessage)
	addKnob(fl, "record", "stop-timeout", &f.stopTimeout)
	addKnob(fl, "record", "drain", &f.drain)
}

// check validates the shared flags before anything starts, and returns
// the tags as a map.
func (f *recordFlags) check() (map[string]string, error) {
	if f.out == "" {
		return nil, usageError("record: -o TAPE is required: the file to record into, e.g. -o session.jsonl")
	}
	if err := checkTapeName(f.out); err != nil {
		return nil, err
	}
	if f.session == "" {
		return nil, usageError("record: --session is empty; give a name, e.g. --session s1")
	}
	if st, err := os.Stat(f.out); err == nil {
		if st.IsDir() {
			return nil, usageError("record: -o %s is a directory; give a file name", f.out)
		}
		if !f.force {
			return nil, usageError("record: %s exists; pass --force to overwrite it, or choose another -o", f.out)
		}
	}
	if st, err := os.Stat(filepath.Dir(f.out)); err != nil || !st.IsDir() {
		return nil, usageError("record: -o %s: the folder %s does not exist", f.out, filepath.Dir(f.out))
	}
	if f.redaction != nil {
		r, err := f.redaction()
		if err != nil {
			return nil, err
		}
		f.redactor = r
	}
	var tags map[string]string
	for _, kv := range f.tags {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageError("record: --tag %q: want key=value", kv)
		}
		if tags == nil {
			tags = map[string]string{}
		}
		tags[k] = v
	}
	if err := f.lockTape(); err != nil {
		return nil, err
	}
	return tags, nil
}

// checkTapeName refuses a tape name that is likely a mistake: an output
// format's word (-o json, -o text: elsewhere -o is the output format, so
// users type it here too), or a name with no extension (the tape formats
// are told apart by theirs).
func checkTapeName(out string) error {
	base := filepath.Base(out)
	switch {
	case slices.Contains(outputs, strings.ToLower(base)):
		return usageError("record: -o %s: here -o names the tape to write (as in go build -o), not an output format; write -o %s.jsonl", out, out)
	case filepath.Ext(base) == "":
		return usageError("record: -o %s: a tape's name has an extension; write -o %s.jsonl", out, out)
	}
	return nil
}

// lockTape takes, when --force overwrites a tape, the lock a serve --mode
// new of that tape holds while it adds to it (TAPE.journal.lock), for as
// long as the recording runs (release with done): refused while such a
// serve runs, rather than cutting the tape it merges its journal into.
func (f *recordFlags) lockTape() error {
	if _, err := os.Stat(f.out); err != nil || !f.force {
		return nil
	}
	lock := serve.Journal(f.out) + ".lock"
	release, err := serve.LockTape(f.out)
	switch {
	case errors.Is(err, serve.ErrTapeBusy):
		return usageError("record --force: a serve --mode new is adding to %s (it holds %s): stop it first (it merges what it recorded into the tape as it stops), or record to another -o", f.out, lock)
	case err != nil:
		return usageError("record --force: cannot lock %s: %v", lock, err)
	}
	f.unlock = release
	return nil
}

// done releases what check took.
func (f *recordFlags) done() {
	if f.unlock != nil {
		f.unlock()
		f.unlock = nil
	}
}

// recorderOptions are the options of the recording f asks for: the
// tape's tags, overwriting, what is kept (keep, see record.KeepIf), its
// redaction, and the page of --ui (what it shows is redacted).
func (a *app) recorderOptions(f *recordFlags, tags map[string]string, keep func(record.Result, error) bool) []record.RecorderOption {
	opts := []record.RecorderOption{record.Tags(tags), record.Redact(f.redactor), record.Logger(a.log), record.KeepIf(keep)}
	if f.force {
		opts = append(opts, record.Overwrite())
	}
	if f.view != nil {
		opts = append(opts, record.WithTap(record.OnMessage(f.view.s.Recorded)))
	}
	return opts
}

// newRecorder makes the recorder of f's tape with opts, and keeps it in
// f.rec.
func newRecorder(f *recordFlags, opts []record.RecorderOption) (*record.Recorder, error) {
	r, err := record.New(f.out, opts...)
	if err != nil {
		return nil, usageError("%v", err)
	}
	f.recMu.Lock()
	defer f.recMu.Unlock()
	if f.abandoned { // a second Ctrl-C has said no tape was written
		return nil, interrupted("stopped before the recording started")
	}
	f.rec = r
	return r, nil
}

// awaitAbandoned is called when a recording's Run has returned: if a
// second Ctrl-C abandoned it meanwhile, the signal's goroutine is saying
// what is on disk and will end the process with 130, and what this stop
// would say (a summary, a failed write, exit 2) is not true of the file
// (the abandoned recorder wrote, renamed and removed nothing): it waits
// for that exit, a minute at most, rather than race it.
func (f *recordFlags) awaitAbandoned() {
	f.recMu.Lock()
	abandoned := f.abandoned
	f.recMu.Unlock()
	if abandoned {
		time.Sleep(time.Minute)
	}
}

// leftAtOnce says, for a second Ctrl-C, where what was recorded so far
// is, and does to it what the ordinary stop does with a recording that
// holds nothing of the server's (recordLeft): the tape, or with --force
// the new file beside it (the old tape is as it was). The recording is
// abandoned first (record.Recorder.Abandon), so that the first signal's
// stop, still under way, changes nothing of what is said (no end line
// written, no rename over the tape, no removal); a write under way (a
// line, or that stop's end line) is waited for, a second at most, and
// if it has not ended by then (a stuck disk) the file is not looked at
// (stuckWrite). overHTTP and upstreamDown are recordLeft's.
func (f *recordFlags) leftAtOnce(overHTTP, upstreamDown bool) string {
	var file string
	var writing bool
	f.recMu.Lock()
	f.abandoned = true // no recorder is made from now on
	rec := f.rec
	f.recMu.Unlock()
	if rec != nil {
		file, writing = rec.Abandon() // may wait for a write: not under recMu
	}
	leftRead()
	var left string
	switch {
	case file == "":
		return f.noTape()
	case writing:
		// A write that has not ended (a disk that does not answer)
		// may hold up a look at the file too: the words need none.
		left = stuckWrite(file)
	default:
		left = recordLeft(file, overHTTP, upstreamDown)
	}
	if file != f.out {
		return fmt.Sprintf("%s is as it was; %s", f.out, left)
	}
	return left
}

// stuckWrite is what a second signal says of the recording's file when
// a write to it had not ended after a second's wait: what is there
// stays, and that write may still add its line, or never end.
func stuckWrite(file string) string {
	return file + " keeps what was recorded so far; a write to it had not ended after a second (is its disk stuck?), so its last line may be missing, cut, or still to come"
}

// leftRead is called by leftAtOnce once it has read which file holds
// the recording (tests: to end the recording there).
var leftRead = func() {}

// recordRan is called when a recording's Run has returned, before
// awaitAbandoned (tests: to hold a second signal's words until then).
var recordRan = func() {}

// noTape is how the end of a recording with nothing kept says so: no
// tape was written, and with --force over a tape, that one is as it was.
func (f *recordFlags) noTape() string {
	if f.unlock != nil {
		return fmt.Sprintf("no tape was written (%s is as it was)", f.out)
	}
	return "no tape was written"
}

// redactionSummary says, on stderr, what the recording's redaction
// replaced (counts by kind and name, never values).
func (a *app) redactionSummary(f *recordFlags) {
	if f.quiet || f.redactor == nil {
		return
	}
	if c := f.redactor.Counts(); c.Total() > 0 {
		printCounts(a.errOut, f.out, c)
	}
}

func (a *app) recordCommand() *cobra.Command {
	var f recordFlags
	var hf recordHTTPFlags
	cmd := &cobra.Command{
		Use:   "record -o TAPE [flags] (-- SERVER_COMMAND ARGS... | --listen ADDR --upstream URL)",
		Short: "Record a real client and server talking, into a tape",
		Long: `Record a session between a real MCP client and a real server into a tape.

stdio: give the client "replayctl record -o TAPE -- SERVER_COMMAND ARGS..." as
its server command. replayctl starts the server, relays every line both ways
byte for byte, and appends each message, with its time and direction, to the
tape as it passes. stdin and stdout are the protocol; the server's stderr and
replayctl's own messages go to stderr.

The tape is created once the protocol version is known (the answer to
initialize, or the _meta of a 2026-07-28 request), with that version in its
header, and then grows line by line: a killed replayctl (even kill -9) leaves a
tape that loads, with every whole line. When the client closes its input, the
server's stdin is closed and it has --stop-timeout to exit (then SIGTERM, then
SIGKILL); Ctrl-C and SIGTERM stop the same way. The tape then gets its end line.
From a file (< requests.jsonl), the server's stdin is closed at the file's end
once every request in it is answered (or cancelled), the server exited, or
the server has said nothing for --drain (30s; counted from the later of the
file's end and its last message, and not before its first answer, so that a
server slow to start is waited for): the requests never answered are named
on stderr, stay on the tape unanswered (it gets its end line), and the exit
status is 1.

Lines that are not JSON (a banner a server prints) are relayed but not
recorded: a warning says so.

--ui 127.0.0.1:0 shows the recording in a browser as it passes (redacted as
the tape is); the address, with its token, is printed on stderr.

Exit status: 0 the session ended (the client closed its input, or the server
exited with status 0); 1 the input was a file and requests in it were never
answered (--drain passed, or the server exited first); 2 bad usage, the tape
could not be written, or the client sent a line longer than --max-message; 3
the server could not start, exited with another status, or sent a line longer
than --max-message; 130 interrupted.
` + recordHTTPHelp,
		Example: `  replayctl record -o session.jsonl -- node my-server.js
  replayctl record -o everything.jsonl --tag server=everything -- go tool everything-server
  replayctl record -o http.jsonl --listen 127.0.0.1:8080 --upstream http://127.0.0.1:3000/mcp`,
		Args: func(cmd *cobra.Command, args []string) error {
			if hf.given() {
				return hf.check(cmd, args)
			}
			if err := hf.checkStdio(cmd); err != nil {
				return err
			}
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return usageError("record: give the server command after --, e.g. replayctl record -o t.jsonl -- node server.js; or, for an HTTP server, --listen ADDR --upstream URL")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f.client = &endReader{}
			clientEnded := func() string {
				if f.client.ended.Load() { // a stdio client closes its input, then may send SIGTERM
					return "the client ended; stopping the server and finishing the tape"
				}
				return ""
			}
			defer a.forceOnSecondSignalSaying(cmd.Context(), clientEnded, func() string {
				return f.leftAtOnce(hf.given(), f.upstreamDown.Load())
			})()
			tags, err := f.check()
			if err != nil {
				return err
			}
			defer f.done()
			view, err := openUI(f.ui, f.out, nil, nil)
			if err != nil {
				return err
			}
			defer view.stop()
			f.view = view
			view.start(cmd.Context(), a.stderr, nil)
			if hf.given() {
				err = a.recordHTTP(cmd.Context(), &f, tags, hf)
			} else {
				err = a.recordStdio(cmd.Context(), &f, tags, args)
			}
			if saveErr := view.finishWith((*ui.Server).RecordEnded); err == nil {
				err = saveErr
			}
			view.wait(cmd.Context(), a.stderr)
			return err
		},
	}
	f.register(cmd.Flags())
	addUIFlags(cmd.Flags(), &f.ui)
	f.redaction = addRedactFlags(cmd)
	hf.add(cmd.Flags())
	return cmd
}

// recordStdio runs the stdio recording proxy on this process's stdin and
// stdout.
func (a *app) recordStdio(ctx context.Context, f *recordFlags, tags map[string]string, argv []string) error {
	if f.client == nil { // serve --mode record: no second signal's note to tell
		f.client = &endReader{}
	}
	// A server that could not start leaves no tape, so that the next try
	// needs no --force; so does one that answered nothing (keep), and
	// with --force the old tape is then as it was.
	silent := false
	keep := func(res record.Result, err error) bool {
		ended := err == nil || errors.Is(err, transport.ErrTarget) || errors.Is(err, record.ErrUnanswered) || ctx.Err() != nil
		silent = ended && !heardServer(res.Path)
		return !silent
	}
	stdio := []record.StdioOption{record.StdioSession(f.session), record.StdioMaxMessage(int(f.maxMessage)), record.StdioStderr(a.stderr)}
	if isRegularFile(a.stdin) {
		// `record < requests.jsonl`: no client waits on the answers.
		stdio = append(stdio, record.StdioAwaitAnswers(), record.StdioDrain(f.drain))
	}
	r, err := newRecorder(f, append(a.recorderOptions(f, tags, keep),
		record.Command(argv...), record.Client(f.client.watch(a.stdin), a.stdout), record.StopTimeout(f.stopTimeout),
		record.WithStdio(stdio...)))
	if err != nil {
		return err
	}
	res, err := r.Run(ctx)
	recordRan()
	f.awaitAbandoned()
	noServer := !res.Stdio.Started && errors.Is(err, transport.ErrTarget)
	var unanswered *record.UnansweredError
	madeMeanwhile := errors.Is(err, fs.ErrExist) // by another recorder, after check
	if !f.quiet && !noServer && !madeMeanwhile {
		a.recordSummary(res, err, silent, f.noTape())
		a.redactionSummary(f)
	}
	switch {
	case silent && ctx.Err() != nil:
		return interrupted("the server answered nothing, so " + f.noTape())
	case silent:
		return &exitError{code: exitTarget, err: fmt.Errorf("record: the server answered nothing (not even initialize), so %s: is %s an MCP server over stdio?", f.noTape(), argv[0])}
	case madeMeanwhile:
		return usageError("record: %s was created by another process while this one recorded, so nothing of this session was written: each server process needs its own -o (a client that starts its server more than once starts one replayctl record each; give each its own tape name, e.g. from a wrapper script), or record over HTTP (--listen/--upstream), where each client session is a session of one tape", f.out)
	case res.TapeErr != nil:
		// Not whole: no "with its end line", whatever else happened.
		return recordError(exitBadInput, err, "")
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return interrupted(fmt.Sprintf("%s recorded to %s, with its end line%s", english.Count(res.Messages, "message"), res.Path, stillDue(res.Stdio.Unanswered)))
	case errors.As(err, &unanswered):
		// The tape is whole: CI tells it from success by the status.
		return &exitError{code: exitFailed, err: fmt.Errorf("record: %s; %s keeps %s as sent, unanswered (%s, with its end line)%s",
			unanswered.What(), res.Path, unanswered.Them(), english.Count(res.Messages, "message"), unanswered.Hint())}
	case noServer:
		return recordError(exitTarget, err, "; "+f.noTape())
	case err != nil && errors.Is(err, transport.ErrTarget):
		return recordError(exitTarget, err, fmt.Sprintf(" (%s recorded to %s)", english.Count(res.Messages, "message"), res.Path))
	case err != nil:
		return recordError(exitBadInput, err, "")
	}
	return nil
}

// stillDue names, for a recording interrupted while a file's answers
// were awaited, the requests still unanswered ("" for none).
func stillDue(reqs []record.Unanswered) string {
	if len(reqs) == 0 {
		return ""
	}
	return "; still unanswered, as on the tape: " + record.List(reqs)
}

// recordError is a recording's failure err, ending the process with
// code: "record: " once (the record package's errors start with it
// already), err's words, then more.
func recordError(code int, err error, more string) error {
	if strings.HasPrefix(err.Error(), "record: ") {
		return &exitError{code: code, err: fmt.Errorf("%w%s", err, more)}
	}
	return &exitError{code: code, err: fmt.Errorf("record: %w%s", err, more)}
}

// recordLeft does, at a second signal's exit, what the ordinary stop
// does with a tape that holds nothing of the server's (removes it, see
// recordStdio and recordHTTP), so that two signals at once (GNU timeout
// signals the process and then its group) leave what one leaves, and
// says what is on disk: no tape, the tape with its end line, or the tape
// without it. overHTTP and upstreamDown say which of the ordinary stop's
// cases apply.
func recordLeft(path string, overHTTP, upstreamDown bool) string {
	const none = "nothing of the server's was recorded, so no tape was written"
	fi, err := os.Stat(path)
	if err != nil {
		return "no tape was written"
	}
	if fi.Size() == 0 { // created, nothing written yet
		if os.Remove(path) == nil {
			return none
		}
	}
	t := readTapeOnDisk(path, true)
	// A tape with nothing of the server's has no exchange to replay (the
	// server never answered initialize, so no protocol version, and sent
	// nothing), and one is created only once the version is known
	// (README). Over HTTP, a working upstream's empty tape is kept.
	drop := !overHTTP || t.messages > 0 || upstreamDown
	if drop && !t.heard && os.Remove(path) == nil {
		return none
	}
	if t.ended {
		return path + " holds what was recorded, with its end line"
	}
	return path + " keeps what was recorded so far, without its end line"
}

// tapeOnDisk is what the tape file at a path holds, as far as it can be
// read.
type tapeOnDisk struct {
	// heard says it holds anything of the server's (a protocol version
	// or a message from it) before its first line that cannot be read,
	// or that it cannot be opened: such a tape is kept.
	heard bool
	// messages counts its messages up to the first line that cannot be
	// read; ended says it has its end line.
	messages int
	ended    bool
}

// readTapeOnDisk reads the tape at path in one pass: whole, to its end
// or its first line that cannot be read; else only until it has heard
// the server (messages and ended are then not known).
func readTapeOnDisk(path string, whole bool) tapeOnDisk {
	r, err := tape.Open(path)
	if err != nil {
		return tapeOnDisk{heard: true}
	}
	defer r.Close()
	t := tapeOnDisk{heard: r.Header().ProtocolVersion != ""}
	for whole || !t.heard {
		m, err := r.Next()
		if err != nil {
			t.ended = errors.Is(err, io.EOF) && r.End() != nil
			break
		}
		t.messages++
		if m.Dir == tape.S2C {
			t.heard = true
		}
	}
	return t
}

// heardServer reports whether the tape at path holds anything of the
// server's, or cannot be opened (see tapeOnDisk.heard): it reads no
// further than it must.
func heardServer(path string) bool { return readTapeOnDisk(path, false).heard }

// recordSummary prints what was recorded, on stderr (stdout is the
// protocol); silent says the tape was not kept as the server answered
// nothing, noTape what is on disk when no tape was left
// (recordFlags.noTape: with --force, the old tape as it was).
func (a *app) recordSummary(rec record.Result, err error, silent bool, noTape string) {
	res := rec.Stdio
	how := "the client closed its input"
	switch {
	case errors.Is(err, record.ErrClientTooLarge):
		how = "the client sent a line longer than --max-message"
	case !res.ClientClosed:
		how = "the server ended"
	case res.Drained && len(res.Unanswered) == 0:
		// Its stdin closed, the server wrote the answers it still owed.
		how += "; --drain passed, then the server answered the rest as it stopped"
	case res.Drained:
		how += fmt.Sprintf("; --drain passed with %s unanswered", english.Count(int64(len(res.Unanswered)), "request"))
	}
	switch {
	case res.Signal != "" && res.Stopped:
		how += fmt.Sprintf("; the server did not exit within --stop-timeout, so replayctl stopped it: %s", res.Signal)
	case res.Signal != "":
		how += fmt.Sprintf("; the server was ended by a signal: %s", res.Signal)
	default:
		how += fmt.Sprintf("; server exit status %d", res.ExitCode)
	}
	switch {
	case !rec.Created && !silent && err != nil:
		how += "; the tape could not be written, so " + noTape
	case !rec.Created:
		how += "; nothing of the server's was recorded, so " + noTape
	}
	fmt.Fprintf(a.errOut, "recorded %s to %s (%s)\n", english.Count(rec.Messages, "message"), rec.Path, how)
	if res.NonJSONFromClient+res.NonJSONFromServer > 0 {
		fmt.Fprintf(a.errOut, "relayed but not recorded: %d non-JSON lines from the client, %d from the server\n", res.NonJSONFromClient, res.NonJSONFromServer)
	}
}

// isRegularFile reports whether r is a regular file (stdin redirected
// from a file).
func isRegularFile(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}

// endReader says when the stdio client's input reached its end.
type endReader struct{ ended atomic.Bool }

// watch returns stdin as the recording's client input, which sets ended
// when it ends. It is readied as the recorder would (stdpipe.Ends)
// before it is wrapped, so that the recording's stop can still end a
// read of it at once (a wrapper of the *os.File would hide it: the stop
// then waited 2 × --stop-timeout + 1s for a client that had not closed
// its input).
func (e *endReader) watch(stdin io.Reader) io.Reader {
	in, _ := stdpipe.Ends(stdin, nil)
	return stdpipe.Watch(in, func() { e.ended.Store(true) })
}
