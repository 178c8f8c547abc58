package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// StaleAfter is how long a temporary file must have gone unmodified before
// Clean may remove it, on top of its writer being gone. The process check
// alone could remove the file of a live writer whose process id means
// nothing here: another container or machine writing to a shared folder.
const StaleAfter = time.Minute

// Clean removes the temporary files that writers of path left behind and
// returns their names: files in path's folder named as Create names them
// for path, whose process is no longer running and which have not been
// modified for StaleAfter. A file of the calling process, of a process
// still running (or one whose state cannot be known), or too recent is
// kept; so is anything not named exactly so. Errors are ignored: Clean is
// housekeeping, and the write that follows reports a folder it cannot use.
func Clean(path string) []string {
	dir, base := split(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	head := "." + base + marker
	for _, e := range entries {
		pid, ok := writerPID(e.Name(), head)
		if !ok || !e.Type().IsRegular() || pid == os.Getpid() || alive(pid) {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < StaleAfter {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if os.Remove(name) == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// writerPID is the process id in name, a temporary file's name that
// starts with head: head, then the id, "-" and the random end that
// os.CreateTemp puts there (digits).
func writerPID(name, head string) (int, bool) {
	rest, ok := strings.CutPrefix(name, head)
	if !ok {
		return 0, false
	}
	id, random, ok := strings.Cut(rest, "-")
	if !ok || !digits(id) || !digits(random) {
		return 0, false
	}
	pid, err := strconv.Atoi(id)
	return pid, err == nil && pid > 0
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
