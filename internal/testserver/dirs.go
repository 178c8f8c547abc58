package testserver

import (
	"os"
	"path/filepath"
	"testing"
)

// UnwritableDir is a folder that exists and where no file can be created,
// or the test is skipped: a read-only folder, or, for root (who writes in
// one), a system folder that takes no new files.
func UnwritableDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	for _, d := range []string{dir, "/proc", "/sys"} {
		f, err := os.CreateTemp(d, "probe-*")
		if err != nil {
			if fi, serr := os.Stat(d); serr == nil && fi.IsDir() {
				return d
			}
			continue
		}
		f.Close()
		os.Remove(f.Name())
	}
	t.Skip("no folder here refuses new files")
	return ""
}
