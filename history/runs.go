package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/report"
)

// ErrNoRun is wrapped by the errors for a run, or a tape, the store does
// not hold.
var ErrNoRun = errors.New("history: no such run")

// Run is one run as the store lists it.
type Run struct {
	ID         int64 // the run's number in the store, from 1
	RunID      string
	StartedAt  time.Time
	TapeHash   string
	TapeName   string
	Target     string
	Version    string
	Options    map[string]string
	Passed     bool
	ExitStatus int
	Messages   int64  // the tape's messages (report summary.total_messages)
	Sent       int64  // messages sent, every session's (summary.sent)
	Sessions   int    // sessions run, virtual copies included
	Speed      string // as the command line takes it ("fast", "10x"); "" if unknown
	Failed     int64
	Errors     int64 // errors and timeouts
	DurationMS float64
}

// Query selects runs. The zero Query is every run.
type Query struct {
	// Tape is a tape's name (as recorded), its hash, or the start of its
	// hash (at least 8 hex digits after "sha256:", or without it).
	Tape string
	// Version keeps the runs of one version under test.
	Version string
	// Last keeps the newest Last runs (0: all).
	Last int
	// Before keeps the runs recorded before run number Before (0: all).
	Before int64
}

// where is q as a WHERE clause over runs and its arguments.
func (q Query) where() (string, []any) {
	var conds []string
	var args []any
	if q.Tape != "" {
		hash := q.Tape
		if !strings.HasPrefix(hash, HashPrefix) {
			hash = HashPrefix + hash
		}
		conds = append(conds, "(tape_name = ? OR tape_hash = ? OR (length(?) >= 15 AND substr(tape_hash, 1, length(?)) = ?))")
		args = append(args, q.Tape, q.Tape, hash, hash, hash)
	}
	if q.Version != "" {
		conds = append(conds, "version = ?")
		args = append(args, q.Version)
	}
	if q.Before > 0 {
		conds = append(conds, "id < ?")
		args = append(args, q.Before)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

const runColumns = `id, run_id, started_at, tape_hash, tape_name, target, version, options, passed, exit_status, messages, failed, errors, duration_ms,
	coalesce(json_extract(figures, '$.summary.sent'), 0), coalesce(json_extract(figures, '$.summary.sessions'), 0), coalesce(json_extract(figures, '$.summary.speed'), '')`

// Runs lists the runs q selects, newest first.
func (s *Store) Runs(ctx context.Context, q Query) ([]Run, error) {
	where, args := q.where()
	query := `SELECT ` + runColumns + ` FROM runs` + where + ` ORDER BY started_at DESC, id DESC`
	if q.Last > 0 {
		query += ` LIMIT ` + strconv.Itoa(q.Last)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("history: list runs of %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func scanRun(row interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var started int64
	var opts string
	if err := row.Scan(&r.ID, &r.RunID, &started, &r.TapeHash, &r.TapeName, &r.Target, &r.Version, &opts,
		&r.Passed, &r.ExitStatus, &r.Messages, &r.Failed, &r.Errors, &r.DurationMS, &r.Sent, &r.Sessions, &r.Speed); err != nil {
		return Run{}, err
	}
	r.StartedAt = time.Unix(0, started).UTC()
	if err := json.Unmarshal([]byte(opts), &r.Options); err != nil {
		return Run{}, fmt.Errorf("history: run %d: options: %w", r.ID, err)
	}
	return r, nil
}

// Find is the run ref names: its number in the store, its run id, or the
// start of its run id (at least 8 characters, naming one run).
func (s *Store) Find(ctx context.Context, ref string) (Run, error) {
	ref = strings.TrimSpace(ref)
	if n, err := strconv.ParseInt(ref, 10, 64); err == nil && n > 0 {
		r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, n))
		if errors.Is(err, sql.ErrNoRows) {
			return Run{}, fmt.Errorf("%w: %s holds no run %d (replayctl history list shows the runs)", ErrNoRun, s.path, n)
		}
		return r, err
	}
	if len(ref) < 8 {
		return Run{}, fmt.Errorf("%w: %q: name a run by its number (history list's first column) or by at least 8 characters of its run id", ErrNoRun, ref)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE substr(run_id, 1, ?) = ? LIMIT 2`, len(ref), ref)
	if err != nil {
		return Run{}, err
	}
	defer rows.Close()
	var found []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return Run{}, err
		}
		found = append(found, r)
	}
	switch len(found) {
	case 0:
		return Run{}, fmt.Errorf("%w: %s holds no run whose id starts with %q", ErrNoRun, s.path, ref)
	case 1:
		return found[0], rows.Err()
	}
	return Run{}, fmt.Errorf("%w: %q names more than one run: give more of its id", ErrNoRun, ref)
}

// Report reads back run's report as the store keeps it: without the
// timeline, failures, errors, faults, histograms and lines by session.
func (s *Store) Report(ctx context.Context, run int64) (*report.Report, error) {
	var figures []byte
	if err := s.db.QueryRowContext(ctx, `SELECT figures FROM runs WHERE id = ?`, run).Scan(&figures); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("%w: %d", ErrNoRun, run)
		}
		return nil, err
	}
	var r report.Report
	if err := json.Unmarshal(figures, &r); err != nil {
		return nil, fmt.Errorf("history: run %d: report: %w", run, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT name, summary FROM lines WHERE run = ? ORDER BY method, name`, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var raw []byte
		var line report.MethodSummary
		if err := rows.Scan(&name, &raw); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &line); err != nil {
			return nil, fmt.Errorf("history: run %d: line %s: %w", run, name, err)
		}
		if name == "" {
			r.PerMethod = append(r.PerMethod, line)
		} else {
			r.PerName = append(r.PerName, line)
		}
	}
	return &r, rows.Err()
}

// Tape is one tape the store has runs of.
type Tape struct {
	Name string // as run was given it
	Hash string
}

// Tapes lists the tapes the store has runs of, each name and hash once,
// the one run most recently first.
func (s *Store) Tapes(ctx context.Context) ([]Tape, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT tape_name, tape_hash FROM runs GROUP BY tape_name, tape_hash ORDER BY max(started_at) DESC, max(id) DESC`)
	if err != nil {
		return nil, fmt.Errorf("history: list tapes of %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Tape
	for rows.Next() {
		var t Tape
		if err := rows.Scan(&t.Name, &t.Hash); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
