package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// claims counts, per file and stage, the importers whose Detect said yes.
type claims struct {
	mu sync.Mutex // guards n: readers of other tests may run in parallel
	n  map[string]map[Stage][]Format
}

// counting wraps an importer: when it claims a file, it asks every other
// importer of its stage too, and counts those that claim it as well.
type counting struct {
	Importer
	all []Importer // unwrapped
	c   *claims
}

func (w counting) Detect(p *Probe) bool {
	if !w.Importer.Detect(p) {
		return false
	}
	var formats []Format
	for _, im := range w.all {
		if im.Stage() == w.Stage() && im.Detect(p) {
			formats = append(formats, im.Format())
		}
	}
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	if w.c.n[p.Path()] == nil {
		w.c.n[p.Path()] = map[Stage][]Format{}
	}
	w.c.n[p.Path()][w.Stage()] = formats
	return true
}

// TestImportersTellFilesApart opens a file of every format, streamed and
// read whole, and checks that it is read as its format and that no two
// importers of one stage claimed it, so that the order of registration
// does not matter.
func TestImportersTellFilesApart(t *testing.T) {
	c := &claims{n: map[string]map[Stage][]Format{}}
	registry.Lock()
	saved := registry.importers
	wrapped := make([]Importer, len(saved))
	for i, im := range saved {
		wrapped[i] = counting{im, saved, c}
	}
	registry.importers = wrapped
	registry.Unlock()
	t.Cleanup(func() {
		registry.Lock()
		registry.importers = saved
		registry.Unlock()
	})

	// withFirst puts a member before the document's first one, so that
	// it is read whole.
	withFirst := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.IndexByte(b, '{')
		return string(b[:i+1]) + `"comment":"first",` + string(b[i+1:])
	}
	read := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	logLine := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`
	tests := []struct {
		name    string
		content string
		want    Format
	}{
		{"native", read("testdata/everything-stdio.jsonl"), FormatNative},
		{"pcap", read("testdata/gosdk-2025.pcap"), FormatPcap},
		{"log", logLine + "\n", FormatLog},
		{"prefixed log", "2026-01-02T03:04:05Z client> " + logLine + "\n", FormatLog},
		{"mcp-vcr", read(peerFixtures + "mcpvcr-stdio.yaml"), FormatMCPVCR},
		{"har streamed", read("testdata/gosdk-2025.har"), FormatHAR},
		{"har whole", withFirst("testdata/gosdk-2025.har"), FormatHAR},
		{"vcr streamed", read("testdata/edge.vcr"), FormatVCR},
		{"vcr one line", read("testdata/compact.vcr"), FormatVCR},
		{"cassette", read(peerFixtures + "cassette-stdio.json"), FormatCassette},
		{"cassette whole", withFirst(peerFixtures + "cassette-stdio.json"), FormatCassette},
		{"recorder", read(peerFixtures + "recorder-http.json"), FormatRecorder},
		{"recorder whole", withFirst(peerFixtures + "recorder-http.json"), FormatRecorder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "f", tt.content)
			r, err := Open(path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer r.Close()
			if r.Format() != tt.want {
				t.Errorf("format: got %s, want %s", r.Format(), tt.want)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(c.n[path]) == 0 && tt.want != FormatNative {
				t.Errorf("no importer claims it")
			}
			for stage, formats := range c.n[path] {
				if len(formats) > 1 {
					t.Errorf("stage %d: %v all claim the file, want one", stage, formats)
				}
			}
		})
	}
}

// TestRegistryOrder checks that Importers lists each format once, by
// stage, and that registering a format twice panics.
func TestRegistryOrder(t *testing.T) {
	ims := Importers()
	seen := map[Format]bool{}
	for i, im := range ims {
		if seen[im.Format()] {
			t.Errorf("%s listed twice", im.Format())
		}
		seen[im.Format()] = true
		if i > 0 && ims[i-1].Stage() > im.Stage() {
			t.Errorf("%s (stage %d) after %s (stage %d)", im.Format(), im.Stage(), ims[i-1].Format(), ims[i-1].Stage())
		}
	}
	for _, f := range []Format{FormatVCR, FormatHAR, FormatLog, FormatCassette, FormatRecorder, FormatMCPVCR, FormatPcap} {
		if !seen[f] {
			t.Errorf("no importer of %s", f)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("registering har twice did not panic")
		}
	}()
	Register(harImporter{})
}

// csvImporter is a format of the test's own: a first line "#csv-tape"
// and then seq,dir,JSON message lines. It is what a new format is: one
// type and one Register.
type csvImporter struct{}

func (csvImporter) Format() Format { return "csv-test" }
func (csvImporter) Stage() Stage   { return StageLine }
func (csvImporter) Detect(p *Probe) bool {
	return string(bytes.TrimSpace(p.First())) == "#csv-tape"
}

func (csvImporter) Import(p *Probe) (*Imported, error) {
	doc, err := p.ReadRest("a csv tape")
	if err != nil {
		return nil, err
	}
	var msgs []Message
	lines := strings.Split(strings.TrimSpace(string(doc)), "\n")[1:]
	for i, l := range lines {
		f := strings.SplitN(l, ",", 3)
		if len(f) != 3 || !json.Valid([]byte(f[2])) {
			return nil, &Error{Path: p.Path(), Line: p.Line() + int64(i) + 1, Seq: -1, Msg: "want seq,dir,message"}
		}
		msgs = append(msgs, Message{Seq: int64(i), Session: "s1", Dir: Dir(f[1]), Msg: []byte(f[2])})
	}
	return ImportedMessages(Header{Format: FormatName, Version: FormatVersion}, msgs, []string{fmt.Sprintf("%d lines", len(lines))}), nil
}

var registerCSV = sync.OnceFunc(func() { Register(csvImporter{}) })

// TestRegisterNewFormat registers a format of its own and reads a file
// of it through Open, and a bad one into its error.
func TestRegisterNewFormat(t *testing.T) {
	registerCSV()
	content := "\n#csv-tape\n0,c2s," + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n1,s2c," + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	r, err := Open(writeTemp(t, "a.csv", content))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Format() != "csv-test" {
		t.Errorf("format: got %s, want csv-test", r.Format())
	}
	msgs := readAll(t, r)
	if len(msgs) != 2 || msgs[1].Dir != S2C || string(msgs[0].Msg) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("got %+v, want the two messages", msgs)
	}
	if w := r.Warnings(); len(w) != 1 || w[0] != "2 lines" {
		t.Errorf("warnings: got %q, want [2 lines]", w)
	}
	if r.End() == nil || r.End().Messages != 2 {
		t.Errorf("end: got %+v, want 2 messages", r.End())
	}

	_, err = Open(writeTemp(t, "b.csv", "#csv-tape\n0,c2s\n"))
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || e.Msg != "want seq,dir,message" {
		t.Fatalf("got %v, want the importer's error at line 2", err)
	}
	if !strings.HasSuffix(filepath.Base(e.Path), "b.csv") {
		t.Errorf("error path: got %s, want b.csv", e.Path)
	}
}

// docImporter is a JSON document format of the test's own,
// {"doc-test":[message, …]}, told by its first member: what a new
// document format is, whether its writer puts it on one line or many.
type docImporter struct{}

func (docImporter) Format() Format { return "doc-test" }
func (docImporter) Stage() Stage   { return StageDocument }
func (docImporter) Detect(p *Probe) bool {
	head := append(bytes.TrimSpace(p.First()), p.Head()...)
	return bytes.HasPrefix(bytes.Join(bytes.Fields(head), nil), []byte(`{"doc-test":`))
}

func (docImporter) Import(p *Probe) (*Imported, error) {
	doc, err := p.ReadRest("a doc-test document")
	if err != nil {
		return nil, err
	}
	var d struct {
		Msgs []json.RawMessage `json:"doc-test"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, &Error{Path: p.Path(), Line: p.Line(), Seq: -1, Msg: "not a doc-test document: " + err.Error()}
	}
	msgs := make([]Message, len(d.Msgs))
	for i, m := range d.Msgs {
		msgs[i] = Message{Seq: int64(i), Session: "s1", Dir: []Dir{C2S, S2C}[i%2], Msg: m}
	}
	return ImportedMessages(Header{Format: FormatName, Version: FormatVersion}, msgs, nil), nil
}

var registerDoc = sync.OnceFunc(func() { Register(docImporter{}) })

// TestRegisterDocumentFormat registers a JSON document format of its
// own and reads a file of it through Open, written on many lines and on
// one; a one-line object of no format still says what it is not.
func TestRegisterDocumentFormat(t *testing.T) {
	registerDoc()
	ping, pong := `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`
	for _, tt := range []struct{ name, content string }{
		{"many lines", "{\n  \"doc-test\": [\n    " + ping + ",\n    " + pong + "\n  ]\n}\n"},
		{"one line", `{"doc-test":[` + ping + "," + pong + "]}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(writeTemp(t, "d.json", tt.content))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Format() != "doc-test" {
				t.Errorf("format: got %s, want doc-test", r.Format())
			}
			msgs := readAll(t, r)
			if len(msgs) != 2 || msgs[1].Dir != S2C || string(msgs[0].Msg) != ping {
				t.Errorf("got %+v, want the two messages", msgs)
			}
		})
	}

	_, err := Open(writeTemp(t, "x.json", `{"version":"1.0","name":"x"}`+"\n"))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrUnknownFormat) || e.Line != 1 || !strings.HasPrefix(e.Msg, `the first line is a JSON object without "type"`) {
		t.Errorf("a one-line object of no format: got %v, want ErrUnknownFormat saying what it lacks", err)
	}
}
