package history_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/history"
)

// TestSchemaVersion: a new store is at SchemaVersion; opened again it
// keeps its runs; a store of a newer schema is refused, naming both
// versions; a file that is not SQLite is refused.
func TestSchemaVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	f := newFixture(t, 1, "echo")
	s := openStore(t, dir)
	if _, err := s.Record(ctx, f.run(t), history.Info{TapeHash: f.hash}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	again := openStore(t, dir)
	if runs, err := again.Runs(ctx, history.Query{}); err != nil || len(runs) != 1 {
		t.Fatalf("reopened: %d runs, %v; want 1", len(runs), err)
	}
	again.Close()

	db, err := sql.Open("sqlite", filepath.Join(dir, history.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != history.SchemaVersion {
		t.Fatalf("user_version %d (%v), want %d", v, err, history.SchemaVersion)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = history.Open(ctx, dir)
	if !errors.Is(err, history.ErrStore) || !strings.Contains(err.Error(), "schema version 99, newer than") {
		t.Errorf("newer schema: got %v, want ErrStore naming version 99", err)
	}

	junk := t.TempDir()
	if err := os.WriteFile(filepath.Join(junk, history.FileName), []byte("not a database, but long enough to be read as a header...................................................................................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := history.Open(ctx, junk); !errors.Is(err, history.ErrStore) {
		t.Errorf("not SQLite: got %v, want ErrStore", err)
	}
}

// TestRecordTwiceRefused: a run id is kept once.
func TestRecordTwiceRefused(t *testing.T) {
	f := newFixture(t, 1, "echo")
	s := openStore(t, t.TempDir())
	rep := f.run(t)
	if _, err := s.Record(context.Background(), rep, history.Info{TapeHash: f.hash}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(context.Background(), rep, history.Info{TapeHash: f.hash}); !errors.Is(err, history.ErrDuplicate) {
		t.Errorf("second Record: got %v, want ErrDuplicate", err)
	}
}

// TestOpenNamesAFileAsTheFolder: a folder named that is a file is
// refused saying so (a folder is wanted), not with SQLite's error about
// the store's file inside it.
func TestOpenNamesAFileAsTheFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "runs")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := history.Open(context.Background(), file)
	if err == nil {
		s.Close()
		t.Fatal("Open of a file: no error")
	}
	if !errors.Is(err, history.ErrStore) || !strings.Contains(err.Error(), file+": is a file; name a folder") {
		t.Errorf("Open of a file: %v, want an ErrStore saying %s is a file", err, file)
	}
}
