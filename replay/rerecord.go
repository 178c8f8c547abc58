package replay

// Re-recording: the live exchange of a replay written as a new tape.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// ErrRerecord is wrapped by Run's error when the replay went to the end
// of its tape but the tape Rerecord asked for could not be written.
var ErrRerecord = errors.New("rerecord")

// Rerecord writes the live exchange of the replay as a new native tape at
// path: every message sent to the target and every message it sent back,
// in the order they passed, with the times they passed (from the
// replay's start), in the recorded sessions under their recorded names,
// with the HTTP and SSE metadata the target's answers came with. It is
// how a tape is refreshed after an intended change of the server.
//
// Secrets are taken out as `replayctl record` does (tape.NewRedactor with
// redact, the default key globs and headers unless
// tape.KeepDefaults(false)), and so are the values of the variables the
// tape's own redaction named (its header's tape.EnvTag), which the replay
// put back into what it sent.
//
// The tape is written to a temporary file beside path and renamed over
// path when the replay has gone to the end of its tape, whether the
// answers matched the recording or not (the report says where they
// differ). A replay that stopped early (the target failed, interrupted,
// OnError("stop")) leaves path untouched, and the report says so; a
// failure to write it is Run's error (wrapping ErrRerecord). An existing
// path is replaced: refusing one is the caller's choice (replayctl run
// refuses it without --force).
//
// With Sessions(n), n > 1, only the first virtual copy of each recorded
// session ("s1#1") is recorded, under the recorded name ("s1"): the new
// tape has the sessions of the old one. Rerecord is not for a chaos
// replay (the faults would be on the tape), a shard (it replays part of
// the run) or a controlled replay (a seek replays messages twice).
func Rerecord(path string, redact ...tape.RedactOption) Option {
	return func(s *settings) {
		s.rerecord, s.rerecordRedact = path, redact
		s.given("Rerecord")
	}
}

// rerecorder is the re-recording of a replay: the Tap its connections
// are recorded into, creating the temporary file once the protocol
// version is known.
type rerecorder struct {
	path     string
	sessions int
	redactor *tape.Redactor
	tap      *record.Tap
	file     *atomicfile.File // nil until the tap opens it
	written  bool             // committed: the tape is at path
	// header is the new tape's header, but for created_at and the
	// protocol version, filled in when the file is made.
	header tape.Header
}

// newRerecorder checks the Rerecord option against the others and makes
// the re-recording of a replay of src.
func (s *settings) newRerecorder(src tape.Source, opts []tape.Option) (*rerecorder, error) {
	switch {
	case s.rerecord == "":
		return nil, bad("Rerecord", s.rerecord, errors.New("want the path of the tape to write, e.g. session.jsonl"))
	case s.chaos != "" || s.chaosFrom != "":
		return nil, bad("Rerecord", s.rerecord, errors.New("a chaos replay's faults would be on the new tape: re-record without chaos"))
	case s.controlled:
		return nil, bad("Rerecord", s.rerecord, errors.New("a controlled replay can seek and send a message twice: re-record with replayctl run"))
	case s.shard.Sharded():
		return nil, bad("Rerecord", s.rerecord, errors.New("a shard replays part of the run: re-record the whole run"))
	}
	if st, err := os.Stat(filepath.Dir(s.rerecord)); err != nil || !st.IsDir() {
		return nil, bad("Rerecord", s.rerecord, fmt.Errorf("the folder %s does not exist", filepath.Dir(s.rerecord)))
	}
	if st, err := os.Stat(s.rerecord); err == nil && st.IsDir() {
		return nil, bad("Rerecord", s.rerecord, errors.New("a folder: give a file name"))
	}
	r, err := tape.OpenSource(src, opts...)
	if err != nil {
		return nil, err
	}
	old := r.Header()
	r.Close()
	redact := append([]tape.RedactOption{tape.RedactEnv(tape.EnvNames(old)...)}, s.rerecordRedact...)
	red, err := tape.NewRedactor(redact...)
	if err != nil {
		return nil, bad("Rerecord", s.rerecord, err)
	}
	rr := &rerecorder{path: s.rerecord, sessions: s.sessions, redactor: red, header: s.target.tapeHeader(old)}
	rr.tap = record.NewLazyTap(rr.open, record.WithRedactor(red))
	return rr, nil
}

// dialer wraps d so that the sessions Rerecord keeps are recorded.
func (rr *rerecorder) dialer(d transport.Dialer) transport.Dialer {
	return record.Dialer(d, rr.tap, record.DialSessions(rr.name))
}

// name is the recorded name of a live session, and whether it is
// recorded: with several virtual copies only the first is, as its
// recorded session.
func (rr *rerecorder) name(session string) (string, bool) {
	if rr.sessions <= 1 {
		return session, true
	}
	i := strings.LastIndexByte(session, '#')
	if i < 0 {
		return session, true
	}
	k, err := strconv.Atoi(session[i+1:])
	if err != nil {
		return session, true
	}
	return session[:i], k == 1
}

// open makes the temporary file and the tape's writer (record.NewLazyTap).
func (rr *rerecorder) open(version string) (*tape.Writer, error) {
	f, err := atomicfile.Create(rr.path)
	if err != nil {
		return nil, err
	}
	h := rr.header
	if version != "" {
		h.ProtocolVersion = version
	}
	h.CreatedAt = rr.tap.Start().UTC().Format(time.RFC3339Nano)
	rr.redactor.Header(&h)
	w, err := tape.NewWriter(f, h)
	if err != nil {
		f.Abort()
		return nil, err
	}
	rr.file = f
	return w, nil
}

// finish ends the re-recording once the replay has returned with runErr:
// it commits the tape when the replay went to its end, and removes it
// otherwise. It returns a note for the report when the tape was not
// written because the replay stopped early, and the error of writing it.
func (rr *rerecorder) finish(runErr error) (note string, err error) {
	if runErr != nil {
		rr.abort()
		return fmt.Sprintf("rerecord: %s not written: the replay stopped early", rr.path), nil
	}
	if err := rr.tap.Close(); err != nil {
		rr.abort()
		return "", fmt.Errorf("%w: write %s: %w", ErrRerecord, rr.path, err)
	}
	if err := rr.file.Commit(); err != nil {
		return "", fmt.Errorf("%w: write %s: %w", ErrRerecord, rr.path, err)
	}
	rr.written = true
	return "", nil
}

// abort closes the tap and removes what it wrote.
func (rr *rerecorder) abort() {
	_ = rr.tap.Close() // opens the file if nothing had: removed at once
	if rr.file != nil {
		rr.file.Abort()
	}
}
