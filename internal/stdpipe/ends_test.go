package stdpipe

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestEndsRegularFile (on Windows too): a regular file is read and
// written through copies whose Close leaves the caller's files open (a
// recording from a file, `record < requests.jsonl > answers.jsonl`, does
// not close the process's stdin and stdout).
func TestEndsRegularFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in"), []byte("line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	in, out := Ends(f, g)
	b, err := io.ReadAll(in)
	if string(b) != "line\n" || err != nil || !Interruptible(in) {
		t.Fatalf("read %q (%v), interruptible %v; want the file's line, interruptible", b, err, Interruptible(in))
	}
	if _, err := out.Write(b); err != nil {
		t.Fatal(err)
	}
	in.(io.Closer).Close()
	out.(io.Closer).Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Errorf("the caller's input file was closed with the copy: %v", err)
	}
	if _, err := g.Write([]byte("more\n")); err != nil {
		t.Errorf("the caller's output file was closed with the copy: %v", err)
	}
}
