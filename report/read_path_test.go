package report

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// A report path that is missing or a folder is named with what to do, as
// a tape's is: "read report: open X: no such file or directory" said
// neither which argument nor what to do, and a folder was "read X: is a
// directory".
func TestReadPathErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.json")
	for _, tc := range []struct {
		name, path string
		want       []string
		is         error
	}{
		{"missing", missing, []string{"report " + missing + ": cannot open it", "no such file or directory", "check the path"}, fs.ErrNotExist},
		{"folder", dir, []string{"report " + dir + ": it is a folder, not a report", "give a JSON report file"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.path)
			if err == nil {
				t.Fatal("Read: no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Read: %q; want it to say %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("Read: %v; want it to wrap %v", err, tc.is)
			}
		})
	}
}
