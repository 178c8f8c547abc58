package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// names lists the files in dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestCreateCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^\.out\.json\.replayctl-tmp-` + strconv.Itoa(os.Getpid()) + `-[0-9]+$`)
	if base := filepath.Base(f.Name()); !want.MatchString(base) || filepath.Dir(f.Name()) != dir {
		t.Errorf("temporary file %s: want %s in %s", f.Name(), want, dir)
	}
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("before Commit: got %q, want the old content", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // does nothing after Commit
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Errorf("after Commit: got %q, %v; want \"new\"", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.json"}) {
		t.Errorf("folder: got %v, want only out.json", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("a second Commit: got no error, want one")
	}
}

func TestAbortAndProbe(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	f.Abort()
	if err := Probe(path); err != nil {
		t.Errorf("Probe: %v", err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("folder: got %v, want it empty", got)
	}
	if err := Probe(filepath.Join(dir, "missing", "out.json")); !os.IsNotExist(err) {
		t.Errorf("Probe in a missing folder: got %v, want not-exist", err)
	}
}

// TestCreateErrorNamesThePath: a file that cannot be created is named as
// the caller gave it, not as the temporary file it would have been.
func TestCreateErrorNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none", "x.json")
	_, err := Create(path)
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "tmp-") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Create(%s) = %v; want an error naming %s that is fs.ErrNotExist", path, err, path)
	}
}
