package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite" // the pure Go SQLite driver, as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the store's file in its folder.
const FileName = "history.db"

// DefaultBusyTimeout is how long a writer waits for another writer of the
// same store (another CI job) before it gives up.
const DefaultBusyTimeout = 30 * time.Second

// ErrStore is wrapped by the errors about the store itself: a folder that
// cannot be made, a file that is not a run store, a schema newer than
// this replayctl knows.
var ErrStore = errors.New("history: bad run store")

// Store is an open run store. Its methods are safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
}

// Option configures [Open].
type Option func(*config)

type config struct {
	busy time.Duration
	made func(dir string)
}

// BusyTimeout sets how long a write waits for another writer (default
// [DefaultBusyTimeout]).
func BusyTimeout(d time.Duration) Option { return func(c *config) { c.busy = d } }

// FolderMade has Open call fn with the store's folder when it makes it
// (the folder did not exist), before it opens the store: a command can
// say so.
func FolderMade(fn func(dir string)) Option { return func(c *config) { c.made = fn } }

// Open opens the run store in dir, making dir (not the folders above it,
// which must exist) and the store when they do not exist, and migrates
// its schema to the current version. It returns when the store is ready
// or ctx is done.
func Open(ctx context.Context, dir string, opts ...Option) (*Store, error) {
	c := config{busy: DefaultBusyTimeout}
	for _, o := range opts {
		o(&c)
	}
	if dir == "" {
		return nil, fmt.Errorf("%w: no folder given", ErrStore)
	}
	if err := os.Mkdir(dir, 0o755); errors.Is(err, fs.ErrExist) {
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return nil, fmt.Errorf("%w: %s: is a file; name a folder", ErrStore, dir)
		}
	} else if err != nil {
		if fi, serr := os.Stat(filepath.Dir(dir)); serr != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%w: the folder %s does not exist; create it first (the store makes the folder %s, not the folders above it)", ErrStore, filepath.Dir(dir), filepath.Base(dir))
		}
		return nil, fmt.Errorf("%w: make folder %s: %v", ErrStore, dir, err)
	} else if c.made != nil {
		c.made(dir)
	}
	path := filepath.Join(dir, FileName)
	q := url.Values{}
	// The busy timeout first, so that the pragmas after it wait too.
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", c.busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate") // a writer takes the lock at BEGIN: no upgrade deadlock
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("%w: open %s: %v", ErrStore, path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.migrateWaiting(ctx, c.busy); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// migrateWaiting migrates, trying again while the store is busy, up to
// the busy timeout. SQLite's own wait does not cover a new store's first
// connections: switching the file to WAL, and a lock SQLite will not wait
// for because waiting could deadlock, fail at once with SQLITE_BUSY when
// several writers open the store together.
func (s *Store) migrateWaiting(ctx context.Context, busy time.Duration) error {
	deadline := time.Now().Add(busy)
	wait := time.Millisecond
	for {
		err := s.migrate(ctx)
		if err == nil || !isBusy(err) || !time.Now().Add(wait).Before(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %s: %w", ErrStore, s.path, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// migrations are the schema's versions: migrations[i] takes the store
// from version i to i+1. Append only; never change one that shipped.
var migrations = []string{
	`CREATE TABLE runs (
		id           INTEGER PRIMARY KEY,
		run_id       TEXT NOT NULL UNIQUE,
		started_at   INTEGER NOT NULL, -- unix nanoseconds
		recorded_at  INTEGER NOT NULL,
		tape_hash    TEXT NOT NULL,
		tape_name    TEXT NOT NULL,
		target       TEXT NOT NULL,
		version      TEXT NOT NULL,   -- the version under test, "" when not given
		options      TEXT NOT NULL,   -- JSON object
		passed       INTEGER NOT NULL,
		exit_status  INTEGER NOT NULL,
		messages     INTEGER NOT NULL,
		failed       INTEGER NOT NULL,
		errors       INTEGER NOT NULL,
		duration_ms  REAL NOT NULL,
		figures      TEXT NOT NULL    -- the report's summary and figures, without its lists (JSON)
	);
	CREATE INDEX runs_by_tape ON runs(tape_hash, started_at);
	CREATE INDEX runs_by_time ON runs(started_at);
	CREATE TABLE messages (
		run      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		session  TEXT NOT NULL,
		seq      INTEGER NOT NULL,
		method   TEXT NOT NULL,
		verdict  TEXT NOT NULL,
		diffs    TEXT,                -- JSON array of differences, NULL when none
		PRIMARY KEY (run, session, seq)
	) WITHOUT ROWID;
	CREATE TABLE lines (
		run      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		method   TEXT NOT NULL,
		name     TEXT NOT NULL,       -- "" for the method's own line (per_method), else per_name's
		summary  TEXT NOT NULL,       -- the report's line (JSON)
		latency  TEXT,                -- the report's encoded latency histogram (JSON), NULL when none
		PRIMARY KEY (run, method, name)
	) WITHOUT ROWID;`,
}

// SchemaVersion is the schema version this package writes.
var SchemaVersion = len(migrations)

// migrate brings the schema to SchemaVersion in one immediate
// transaction, so that concurrent openers migrate once.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrStore, s.path, err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("%w: %s: read schema version: %w (is it a SQLite file?)", ErrStore, s.path, err)
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w: %s has schema version %d, newer than this replayctl's %d: use a newer replayctl", ErrStore, s.path, v, SchemaVersion)
	}
	for ; v < SchemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("%w: %s: migrate schema to version %d: %v", ErrStore, s.path, v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrStore, s.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrStore, s.path, err)
	}
	return nil
}
