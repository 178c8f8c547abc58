package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// countingSource counts how often its bytes are opened.
type countingSource struct {
	Source
	opens atomic.Int64
}

func (c *countingSource) Open() (io.ReadSeekCloser, error) {
	c.opens.Add(1)
	return c.Source.Open()
}

// readThrough reads every message of src and what the reader says of them.
func readThrough(t *testing.T, src Source) (Format, Header, []string, []Message) {
	t.Helper()
	r, err := OpenSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var msgs []Message
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	return r.Format(), r.Header(), r.Warnings(), msgs
}

func TestSharedDecodesAnImportOnce(t *testing.T) {
	for _, name := range []string{"edge.vcr", "compact.vcr", "gosdk-2025.har", "peers/cassette-stdio.json", "peers/recorder-http.json", "everything-stdio.jsonl"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			wantFormat, wantHeader, wantWarnings, want := readThrough(t, File(path))
			if len(want) == 0 {
				t.Fatal("the fixture has no messages")
			}
			counted := &countingSource{Source: File(path)}
			shared := Share(counted)
			defer shared.Close()
			// Several readers at once, as a run has them: each reads all.
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					format, header, warnings, got := readThrough(t, shared)
					if format != wantFormat || !reflect.DeepEqual(header, wantHeader) || !reflect.DeepEqual(warnings, wantWarnings) {
						t.Errorf("format %s, header %+v, warnings %q; want %s, %+v, %q", format, header, warnings, wantFormat, wantHeader, wantWarnings)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("messages differ from a reader of the file: got %d, want %d", len(got), len(want))
					}
				})
			}
			wg.Wait()
			opens := counted.opens.Load()
			if wantFormat == FormatNative {
				if opens != 4 { // a native tape is read from its file each time
					t.Errorf("native tape opened %d times, want 4", opens)
				}
				return
			}
			if opens != 1 {
				t.Errorf("imported tape opened %d times by 4 readers, want 1", opens)
			}
			if err := shared.Close(); err != nil {
				t.Fatal(err)
			}
			readThrough(t, shared) // after Close, decoded again
			if got := counted.opens.Load(); got != 2 {
				t.Errorf("after Close: opened %d times in all, want 2", got)
			}
		})
	}
}

// A Shared whose first decode fails says so to every reader, each time.
func TestSharedBadTape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.vcr")
	if err := os.WriteFile(path, []byte(`{"format_version":"1.0.0","session":{"interactions":[{"request":7}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := Share(File(path))
	for range 2 {
		if _, err := OpenSource(shared); err == nil {
			t.Fatal("a bad cassette opened")
		}
	}
}

// plainString reads what encoding/json reads, when it reads at all.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"\u00e9"`, `"é"`, "\"\xff\"", `""`, `"`, `"a` + "\t" + `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := plainString(b)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil || got != want {
			t.Fatalf("plainString(%q) = %q; encoding/json: %q, %v", b, got, want, err)
		}
	})
}

// What compact and jsonscan.Valid let through, json.Compact leaves as it is.
func FuzzCompact(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a": 1}`, `{"a":"x y"}`, `{"a":"\" "}`, `[1,2 ]`, `{"a":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !compact(b) || !jsonscan.Valid(b) {
			return
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("json.Compact(%q) = %q, %v; want it unchanged", b, buf.Bytes(), err)
		}
	})
}

// TestSharedLastSeqs: a Shared that decoded a one-session import (an
// Agent VCR cassette) knows each session's last seq, as a read of every
// message finds it; a native tape, an import of several sessions or a
// Shared that decoded nothing yet leaves it to the caller.
func TestSharedLastSeqs(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"edge.vcr", true}, {"compact.vcr", true}, {"gosdk-2025.har", false}, {"everything-stdio.jsonl", false}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", tc.name)
			shared := Share(File(path))
			defer shared.Close()
			if _, ok := shared.LastSeqs(); ok {
				t.Fatal("before any decode: ok, want not")
			}
			_, _, _, msgs := readThrough(t, shared)
			want := map[string]int64{}
			for _, m := range msgs {
				want[m.Session] = m.Seq
			}
			got, ok := shared.LastSeqs()
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if ok && !reflect.DeepEqual(got, want) {
				t.Errorf("last seqs %v, want %v (a read of every message)", got, want)
			}
		})
	}
}
