//go:build unix

package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// deadPID is the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestClean(t *testing.T) {
	dead, old := deadPID(t), time.Now().Add(-2*StaleAfter)
	tmp := func(base string, pid int) string { return prefix(base, pid) + "12345" }
	tests := []struct {
		name    string
		file    string
		mtime   time.Time
		dir     bool
		removed bool
	}{
		{"a dead writer's, old", tmp("out.json", dead), old, false, true},
		{"a dead writer's, recent", tmp("out.json", dead), time.Now(), false, false},
		{"this process's", tmp("out.json", os.Getpid()), old, false, false},
		{"a live process's", tmp("out.json", os.Getppid()), old, false, false},
		{"another target's", tmp("other.json", dead), old, false, false},
		{"a longer target's", tmp("out.json.bak", dead), old, false, false},
		{"no random end", prefix("out.json", dead), old, false, false},
		{"a name not its shape", prefix("out.json", dead) + "x1", old, false, false},
		{"not a number", ".out.json.replayctl-tmp-abc-1", old, false, false},
		{"not hidden", "out.json.replayctl-tmp-" + strconv.Itoa(dead) + "-1", old, false, false},
		{"a folder", tmp("out.json", dead), old, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, tt.file)
			var err error
			if tt.dir {
				err = os.Mkdir(name, 0o755)
			} else {
				err = os.WriteFile(name, []byte("half"), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(name, tt.mtime, tt.mtime); err != nil {
				t.Fatal(err)
			}
			removed := Clean(filepath.Join(dir, "out.json"))
			_, serr := os.Stat(name)
			if gone := os.IsNotExist(serr); gone != tt.removed || (len(removed) == 1) != tt.removed {
				t.Errorf("%s: got removed %v (Clean said %v), want %v", tt.file, gone, removed, tt.removed)
			}
		})
	}
}

// TestCreateCleans: a write removes what a killed writer of the same
// target left.
func TestCreateCleans(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	left := filepath.Join(dir, prefix("out.json", deadPID(t))+"777")
	old := time.Now().Add(-2 * StaleAfter)
	if err := os.WriteFile(left, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(left, old, old); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.json"}) {
		t.Errorf("folder: got %v, want only out.json", got)
	}
}
