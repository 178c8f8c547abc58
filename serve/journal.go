package serve

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/internal/filelock"
	"github.com/replayctl/replayctl/tape"
)

// Journal is the journal of mode New next to the tape at path: the
// exchanges forwarded to the upstream, appended line by line while
// serving (a tape of its own), merged into the tape when Run returns.
// Journal(path)+".lock" keeps a second Run in mode New (and a `replayctl
// record` over the tape) out while one runs.
func Journal(path string) string { return path + ".journal" }

// ErrTapeBusy is matched by LockTape's error when a Run in mode New of
// the tape holds its lock (in this process or another).
var ErrTapeBusy = filelock.ErrLocked

// LockTape takes the lock a Run in mode New holds while it adds to the
// tape at path (Journal(path)+".lock"), for another writer of the tape
// (`replayctl record --force`, `run --rerecord --force`): taken, no Run
// in mode New merges a journal into the tape under its feet. It returns
// at once; while such a Run holds the lock the error matches
// ErrTapeBusy. release gives the lock back.
func LockTape(path string) (release func(), err error) {
	return filelock.Lock(lockOf(path))
}

// lockOf is the lock of mode New's journal of the tape at path.
func lockOf(path string) string { return Journal(path) + ".lock" }

// tapeSessions returns the header and the session names of the native
// tape at path.
func tapeSessions(path string, maxLine int) (tape.Header, map[string]bool, error) {
	r, err := tape.Open(path, tape.WithMaxLine(maxLine))
	if err != nil {
		return tape.Header{}, nil, err
	}
	defer r.Close()
	if r.Format() != tape.FormatNative {
		return tape.Header{}, nil, fmt.Errorf("%s is a %s tape; --mode new adds to a native tape: convert it first (replayctl convert %s tape.jsonl)", path, r.Format(), path)
	}
	names := map[string]bool{}
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r.Header(), names, nil
		}
		if err != nil {
			return tape.Header{}, nil, err
		}
		names[m.Session] = true
	}
}

// mergeJournal appends the messages of the journal at jpath to the tape
// at path, atomically (the tape is replaced whole or not at all), each
// journal session under a name the tape does not have (its own, or the
// next free nK), and then removes the journal. Sessions in which the
// upstream said nothing are left out. A journal torn by a crash
// gives its whole lines. It returns how many messages and which sessions
// were added.
func mergeJournal(path, jpath string, maxLine int) (int, []string, error) {
	src, err := tape.Open(path, tape.WithMaxLine(maxLine))
	if err != nil {
		return 0, nil, err
	}
	defer src.Close()
	jr, err := tape.Open(jpath, tape.WithMaxLine(maxLine))
	if err != nil {
		return 0, nil, fmt.Errorf("the journal %s: %w", jpath, err)
	}
	defer jr.Close()
	out, err := atomicfile.Create(path)
	if err != nil {
		return 0, nil, err
	}
	n, added, err := copyMerged(out, src, jr)
	if err != nil {
		out.Abort()
		return 0, nil, fmt.Errorf("merge %s into %s: %w", jpath, path, err)
	}
	if err := out.Commit(); err != nil {
		return 0, nil, fmt.Errorf("merge %s into %s: %w", jpath, path, err)
	}
	if err := os.Remove(jpath); err != nil {
		return n, added, fmt.Errorf("merged %s into %s, but could not remove it: %w (remove it by hand, or the next serve --mode new adds it again)", jpath, path, err)
	}
	return n, added, nil
}

// copyMerged writes src's header and messages to w, then jr's after them.
func copyMerged(w io.Writer, src, jr *tape.Reader) (int, []string, error) {
	tw, err := tape.NewWriter(w, src.Header())
	if err != nil {
		return 0, nil, err
	}
	names := map[string]bool{}
	var seq, t int64 = -1, 0
	for {
		m, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, nil, err
		}
		names[m.Session] = true
		seq, t = max(seq+1, m.Seq), max(t, m.TUS)
		m.Seq = seq
		if err := tw.Write(m); err != nil {
			return 0, nil, err
		}
	}
	answered, err := answeredSessions(jr)
	if err != nil {
		return 0, nil, err
	}
	rename := map[string]string{}
	var added []string
	n := 0
	for {
		m, err := jr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, nil, err
		}
		if !answered[m.Session] {
			continue
		}
		name, ok := rename[m.Session]
		if !ok {
			name = m.Session
			if names[name] {
				name = freeName(names)
			}
			names[name] = true
			rename[m.Session] = name
			added = append(added, name)
		}
		seq++
		m.Seq, m.TUS, m.Session = seq, t+m.TUS, name
		if err := tw.Write(m); err != nil {
			return 0, nil, err
		}
		n++
	}
	return n, added, tw.Close()
}

// freeName is the first nK (K = 1, 2, …) not in names.
func freeName(names map[string]bool) string {
	for k := 1; ; k++ {
		if n := "n" + strconv.Itoa(k); !names[n] {
			return n
		}
	}
}

// sessionNamer returns the names of the sessions serve --mode new adds:
// n1, n2, … skipping those in taken (the tape's), which it adds each
// name it gives to: taken becomes the namer's.
func sessionNamer(taken map[string]bool) func() string {
	return func() string {
		n := freeName(taken)
		taken[n] = true
		return n
	}
}

// answeredSessions returns the journal sessions the upstream said
// anything in (those it never answered, its connection refused, have
// nothing to replay and are left out), and rewinds the journal.
func answeredSessions(jr *tape.Reader) (map[string]bool, error) {
	answered := map[string]bool{}
	for {
		m, err := jr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if m.Dir == tape.S2C {
			answered[m.Session] = true
		}
	}
	return answered, jr.Rewind()
}
