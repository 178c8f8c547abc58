package tape

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Detection reads a file's first line whole, and that line is often a
// JSON document of megabytes (a cassette): it is read into one buffer of
// its size, not one grown by doubling (which allocated and copied it
// about twice more), and the importer keeps that buffer without copying
// it again. A line of a native tape past the first is assembled as before.
func TestFirstLineReadIntoOneBuffer(t *testing.T) {
	line := append([]byte(`{"format_version":"1.0.0","pad":"`), bytes.Repeat([]byte("x"), 3<<20)...)
	line = append(line, `"}`...)
	path := filepath.Join(t.TempDir(), "one.vcr")
	if err := os.WriteFile(path, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		src  Source
	}{{"file", File(path)}, {"bytes", Bytes("one.vcr", append(line, '\n'))}} {
		src := tt.src
		t.Run(tt.name, func(t *testing.T) {
			f, err := src.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			nr := newNativeReader(newFront(src.Name(), nil), f)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			nr.detecting = true
			got, last, err := nr.readLine()
			nr.detecting = false
			kept := nr.keepLine(got)
			runtime.ReadMemStats(&after)
			if err != nil || last || !bytes.Equal(kept, line) {
				t.Fatalf("read %d bytes, last %v, err %v; want the line of %d", len(kept), last, err, len(line))
			}
			if &kept[0] != &got[0] {
				t.Errorf("keepLine copied the long line it read")
			}
			// The line once, and room for the runtime's own small
			// allocations; doubling took about three times the line.
			if alloc, most := after.TotalAlloc-before.TotalAlloc, uint64(len(line))+uint64(len(line))/4; alloc > most {
				t.Errorf("reading and keeping a first line of %d bytes allocated %d bytes, want at most %d", len(line), alloc, most)
			}
			// A later long line reuses no buffer the first line's keeper holds.
			nr.long = append(nr.long, "reused"...)
			if !bytes.Equal(kept, line) {
				t.Errorf("the kept line changed when the reader assembled another")
			}
		})
	}
}
