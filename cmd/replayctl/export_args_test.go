package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportArgsChecked: export reads its TAPE before it looks at OUT. With
// the arguments swapped (export --k6 out.k6 tape.jsonl) it said
// "tape.jsonl exists; pass --force": it now says the arguments look
// swapped; a missing TAPE is said to be missing; an OUT that is a
// directory is named as one (it failed with "rename into place: … file
// exists"), for convert and import too.
func TestExportArgsChecked(t *testing.T) {
	dir := t.TempDir()
	tapePath, err := filepath.Abs("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.k6")
	sub := filepath.Join(dir, "d.jsonl") // a directory with a tape's name
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"swapped", []string{"export", "--k6", out, tapePath}, "look swapped"},
		{"missing tape", []string{"export", "--k6", filepath.Join(dir, "none.jsonl"), tapePath}, "none.jsonl"},
		{"out is a directory", []string{"export", "--har", tapePath, dir, "--force"}, "is a directory: give a file name"},
		{"convert into a directory", []string{"convert", tapePath, sub, "--force"}, "is a directory: give a file name"},
		{"import into a directory", []string{"import", tapePath, sub, "--force"}, "is a directory: give a file name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(out, []byte("// a script\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			res := replayctl(t, tc.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) || strings.Contains(res.stderr, "pass --force") || strings.Contains(res.stderr, "rename into place") {
				t.Errorf("%v: got exit %d, stderr %q, want exit 2 and %q", tc.args, res.code, res.stderr, tc.want)
			}
		})
	}
}

// TestRedactArgsChecked: redact names a missing IN before it writes, and
// refuses an OUT that is a directory as one (it failed with "rename into
// place: … file exists").
func TestRedactArgsChecked(t *testing.T) {
	dir := t.TempDir()
	tapePath, err := filepath.Abs("../../examples/quickstart.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "d.jsonl")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"out is a directory", []string{"redact", tapePath, sub}, "is a directory: give a file name"},
		{"swapped", []string{"redact", filepath.Join(dir, "none.jsonl"), tapePath}, "look swapped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, tc.args...)
			if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("%v: got exit %d, stderr %q, want exit 2 and %q", tc.args, res.code, res.stderr, tc.want)
			}
		})
	}
}
