package tape_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// A JSON syntax error in a cassette names its line and column; a second
// document after the first names where it starts.
func TestVCRSyntaxErrorPosition(t *testing.T) {
	one := `{"format_version":"1.0.0","metadata":{"version":"1.0","transport":"stdio"},"session":{"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}},"initialize_response":{"jsonrpc":"2.0","id":0,"result":{}},"interactions":[]}}`
	for _, tc := range []struct{ name, doc, want string }{
		{"cut", one[:100], "line 1: not valid JSON at column 100 (unexpected end of JSON input)"},
		{"two", one + "\n" + one + "\n", "line 2: a second JSON document starts at line 2 column 1: one cassette per file"},
		{"two-indented", one + "\n\n   " + one + "\n", "line 3: a second JSON document starts at line 3 column 4: one cassette per file"},
		{"trailing-number", one + "\n 12\n", "line 2: not valid JSON at column 2 (12 after the top-level value)"},
		{"trailing", one + " xyz\n", "line 1: not valid JSON at column 246 (invalid character 'x' looking for beginning of value)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.vcr")
			if err := os.WriteFile(path, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := tape.Open(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v\nwant it to say %q", err, tc.want)
			}
		})
	}
}
