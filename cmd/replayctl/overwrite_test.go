package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/shrink"
	"github.com/replayctl/replayctl/tape"
)

// TestShrinkKeepsExistingFiles: shrink writes over no file that exists
// (the input tape named as --tape-out, the default TAPE.min.jsonl, a
// --plan-out, a --report) unless --force: exit 2 before any replay, the
// file as it was. With --force, the input itself is replaced atomically
// by the smaller tape, once the shrink has read it.
func TestShrinkKeepsExistingFiles(t *testing.T) {
	root := testserver.Root(t)
	planted := testserver.Planted(t)[0]
	dir := t.TempDir()
	orig, err := os.ReadFile(filepath.Join(root, "shrink/testdata/planted-abc.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	kept := []byte("mine\n")
	mine := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, kept, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	chaos := filepath.Join(root, "shrink/testdata/planted-abc.jsonl") // any file: refused before it is read
	for _, tc := range []struct {
		name  string
		args  []string
		check string // the file that must be as it was
		want  []byte
	}{
		{"the input as --tape-out", []string{"shrink", big, "--tape-out", big}, big, orig},
		{"the default TAPE.min.jsonl", []string{"shrink", big}, mine("big.min.jsonl"), kept},
		{"--report", []string{"shrink", big, "--tape-out", filepath.Join(dir, "new.jsonl"), "--report", mine("r.json")}, filepath.Join(dir, "r.json"), kept},
		{"--plan-out", []string{"shrink", big, "--tape-out", filepath.Join(dir, "new.jsonl"), "--chaos-from", chaos, "--plan-out", mine("p.json")}, filepath.Join(dir, "p.json"), kept},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, append(tc.args, "-q", "--", planted, "-abc", "boom")...)
			if res.code != 2 || !strings.Contains(res.stderr, "exists; pass --force") {
				t.Errorf("exit %d, stderr %q; want 2 and %q", res.code, res.stderr, "exists; pass --force")
			}
			if got, _ := os.ReadFile(tc.check); string(got) != string(tc.want) {
				t.Errorf("%s was changed: %d bytes, want %d", tc.check, len(got), len(tc.want))
			}
			if strings.Contains(res.stderr, "shrink: round") {
				t.Errorf("refused only after replaying:\n%s", res.stderr)
			}
		})
	}
	t.Run("--force onto the input", func(t *testing.T) {
		res := replayctl(t, "shrink", big, "--tape-out", big, "--force", "-q", "--", planted, "-abc", "boom")
		if res.code != 0 {
			t.Fatalf("exit %d, want 0\n%s\n%s", res.code, res.stdout, res.stderr)
		}
		m, err := shrink.Load(tape.File(big))
		if err != nil {
			t.Fatalf("the shrunk tape: %v", err)
		}
		if n := len(m.Messages); n >= 1066 || n == 0 {
			t.Errorf("%s has %d messages: want the smaller tape, fewer than 1066", big, n)
		}
	})
}

// TestRedactKeepsExistingFiles: redact writes over an existing OUT that
// is not IN only with --force (exit 2 otherwise, OUT as it was); IN
// itself may be OUT (it is read whole before OUT is replaced).
func TestRedactKeepsExistingFiles(t *testing.T) {
	t.Setenv("REDACT_TEST_SECRET", redactSecret)
	in := secretTape(t)
	other := filepath.Join(t.TempDir(), "other.jsonl")
	kept := []byte("{\"type\":\"header\"}\n")
	if err := os.WriteFile(other, kept, 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "redact", in, other, "--redact-env", "REDACT_TEST_SECRET")
	if res.code != 2 || !strings.Contains(res.stderr, "exists; pass --force") {
		t.Errorf("redact onto an existing tape: exit %d, stderr %q; want 2 and %q", res.code, res.stderr, "exists; pass --force")
	}
	if got, _ := os.ReadFile(other); string(got) != string(kept) {
		t.Errorf("%s was replaced without --force", other)
	}
	res = replayctl(t, "redact", in, other, "--redact-env", "REDACT_TEST_SECRET", "--force")
	if res.code != 0 {
		t.Fatalf("--force: exit %d\n%s", res.code, res.stderr)
	}
	if got, _ := os.ReadFile(other); string(got) == string(kept) || strings.Contains(string(got), redactSecret) {
		t.Errorf("--force: %s not replaced by the redacted tape", other)
	}
}
