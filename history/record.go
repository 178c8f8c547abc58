package history

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/replayctl/replayctl/report"
)

// ErrDuplicate is returned by [Store.Record] for a report whose run id is
// already in the store.
var ErrDuplicate = errors.New("history: run already recorded")

// Info is what a report does not say about its run.
type Info struct {
	// TapeHash identifies the tape by content ([HashFile]); runs of the
	// same tape share it, whatever its file is called.
	TapeHash string
	// TapeName is the tape as the user named it; the report's when empty.
	TapeName string
	// Version is the version under test (a commit, a tag), "" when not
	// known.
	Version string
	// Options are the options the run was given (flag to value), without
	// secrets.
	Options map[string]string
	// ExitStatus is the run's exit status; the report's when zero and the
	// report did not pass.
	ExitStatus int
}

// HashFile is the content hash of the file at path, as runs store it:
// "sha256:" and the hex digest.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return HashPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// HashPrefix starts every tape hash.
const HashPrefix = "sha256:"

// Record keeps rep and info as one run, in one transaction, and returns
// the run's number in the store. It returns when the run is committed,
// or with an error (nothing kept) when another writer held the store past
// the busy timeout, or ctx is done.
func (s *Store) Record(ctx context.Context, rep *report.Report, info Info) (int64, error) {
	if info.TapeHash == "" {
		return 0, fmt.Errorf("history: record run %s: no tape hash", rep.Summary.RunID)
	}
	if info.TapeName == "" {
		info.TapeName = rep.Summary.Tape
	}
	if info.ExitStatus == 0 && !rep.Passed() {
		info.ExitStatus = rep.ExitStatus()
	}
	opts, err := json.Marshal(nonNil(info.Options))
	if err != nil {
		return 0, err
	}
	figures, err := figuresOf(rep)
	if err != nil {
		return 0, fmt.Errorf("history: record run %s: encode report: %w", rep.Summary.RunID, err)
	}
	started := rep.Summary.StartedAt
	if started.IsZero() {
		started = time.Now()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("history: record run %s in %s: %w", rep.Summary.RunID, s.path, err)
	}
	defer tx.Rollback()
	var dup int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE run_id = ?`, rep.Summary.RunID).Scan(&dup); err != nil {
		return 0, fmt.Errorf("history: record run %s in %s: %w", rep.Summary.RunID, s.path, err)
	}
	if dup > 0 {
		return 0, fmt.Errorf("%w: %s", ErrDuplicate, rep.Summary.RunID)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO runs
		(run_id, started_at, recorded_at, tape_hash, tape_name, target, version, options, passed, exit_status, messages, failed, errors, duration_ms, figures)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		rep.Summary.RunID, started.UnixNano(), time.Now().UnixNano(), info.TapeHash, info.TapeName, rep.Summary.Target,
		info.Version, string(opts), rep.Passed(), info.ExitStatus, rep.Summary.TotalMessages, rep.Validation.Failed,
		rep.Performance.Errors+rep.Performance.Timeouts, rep.Summary.DurationMS, figures)
	if err != nil {
		return 0, fmt.Errorf("history: record run %s in %s: %w", rep.Summary.RunID, s.path, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if err := insertMessages(ctx, tx, id, rep); err != nil {
		return 0, fmt.Errorf("history: record run %s in %s: messages: %w", rep.Summary.RunID, s.path, err)
	}
	if err := insertLines(ctx, tx, id, rep); err != nil {
		return 0, fmt.Errorf("history: record run %s in %s: lines by method: %w", rep.Summary.RunID, s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("history: record run %s in %s: %w", rep.Summary.RunID, s.path, err)
	}
	return id, nil
}

// messageKey names a message of a tape across runs.
type messageKey struct {
	session string
	seq     int64
}

// insertMessages keeps each message of rep's timeline with its verdict
// and differences (from the report's failures).
func insertMessages(ctx context.Context, tx *sql.Tx, run int64, rep *report.Report) error {
	diffs := make(map[messageKey][]report.Difference, len(rep.Validation.Failures))
	for _, f := range rep.Validation.Failures {
		diffs[messageKey{f.Session, f.Seq}] = f.Differences
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO messages (run, session, seq, method, verdict, diffs) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, e := range rep.Timeline {
		if e.Verdict == report.Sent { // nothing was checked
			continue
		}
		var d any // NULL
		if ds := diffs[messageKey{e.Session, e.Seq}]; len(ds) > 0 {
			b, err := json.Marshal(ds)
			if err != nil {
				return err
			}
			d = string(b)
		}
		if _, err := stmt.ExecContext(ctx, run, e.Session, e.Seq, e.Method, string(e.Verdict), d); err != nil {
			return err
		}
	}
	return nil
}

// insertLines keeps the report's line of each method and name with its
// latency histogram.
func insertLines(ctx context.Context, tx *sql.Tx, run int64, rep *report.Report) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO lines (run, method, name, summary, latency) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	hists := map[Group]report.EncodedHistogram{}
	for _, list := range [][]report.GroupHistogram{rep.Histograms.PerMethod, rep.Histograms.PerName} {
		for _, g := range list {
			hists[Group{g.Method, g.Name}] = g.Latency
		}
	}
	for _, list := range [][]report.MethodSummary{rep.PerMethod, rep.PerName} {
		for _, line := range list {
			sum, err := json.Marshal(line)
			if err != nil {
				return err
			}
			var latency any // NULL
			if h, ok := hists[Group{line.Method, line.Name}]; ok {
				b, err := json.Marshal(h)
				if err != nil {
					return err
				}
				latency = string(b)
			}
			if _, err := stmt.ExecContext(ctx, run, line.Method, line.Name, string(sum), latency); err != nil {
				return err
			}
		}
	}
	return nil
}

// figuresOf is rep's figures as the store keeps them: the report without
// what is kept apart or not at all: the timeline, failures, errors and
// faults (kept per message), the lines by method and name and their
// histograms (kept per line), the latency buckets and the lines by
// session. With its lines it reads back as a report whose metrics
// thresholds can name ([Store.Report]).
func figuresOf(rep *report.Report) (string, error) {
	r := *rep
	r.Timeline = nil
	r.Validation.Failures = nil
	r.Errors = nil
	r.Chaos.Faults = nil
	r.Histograms = report.Histograms{}
	r.Performance.LatencyHistogram = nil
	r.PerSession = nil
	r.PerMethod, r.PerName = nil, nil
	b, err := json.Marshal(r)
	return string(b), err
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
