package history_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// TestOpenMakesItsFolder: Open makes a missing folder (not the folders
// above it) and says so through FolderMade, once; a folder that exists
// is not said to be made.
func TestOpenMakesItsFolder(t *testing.T) {
	base := t.TempDir()
	for _, c := range []struct {
		name, dir string
		made      []string
		err       string
	}{
		{"missing", filepath.Join(base, "runs"), []string{filepath.Join(base, "runs")}, ""},
		{"again", filepath.Join(base, "runs"), nil, ""},
		{"parent missing", filepath.Join(base, "no", "runs"), nil, filepath.Join(base, "no") + " does not exist; create it first"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var made []string
			s, err := history.Open(context.Background(), c.dir, history.FolderMade(func(dir string) { made = append(made, dir) }))
			if err == nil {
				s.Close()
			}
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("Open: %v, want error %q", err, c.err)
			}
			if !slices.Equal(made, c.made) {
				t.Errorf("FolderMade called with %q, want %q", made, c.made)
			}
			if fi, err := os.Stat(c.dir); (c.err == "") != (err == nil && fi.IsDir()) {
				t.Errorf("folder %s: %v, want made: %v", c.dir, err, c.err == "")
			}
		})
	}
}
