package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// importFormatNames is how import's help, convert's and the README name
// each format tape's importers read.
var importFormatNames = map[tape.Format]string{
	tape.FormatHAR:      "HAR",
	tape.FormatLog:      "JSON-RPC log",
	tape.FormatPcap:     "pcap",
	tape.FormatVCR:      "Agent VCR",
	tape.FormatCassette: "mcp-cassette",
	tape.FormatRecorder: "mcp-recorder",
	tape.FormatMCPVCR:   "mcp-vcr",
}

// TestDocsImportFormats: every format registered with tape.Register (an
// importer in a file of package tape) is named in import's help, in
// convert's, and in the README's Import and export section; a format added
// without its docs fails here, saying where.
func TestDocsImportFormats(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, readme, ok := strings.Cut(string(b), "\n## Import and export\n")
	if !ok {
		t.Fatal("README.md has no Import and export section")
	}
	readme, _, _ = strings.Cut(readme, "\n## ")
	a := &app{}
	docs := []struct{ where, text string }{
		{"replayctl import --help (cmd/replayctl/import.go)", a.importCommand().Long},
		{"replayctl convert's summary (cmd/replayctl/convert.go)", a.convertCommand().Short},
		{"README.md, Import and export", readme},
	}
	ims := tape.Importers()
	if len(ims) == 0 {
		t.Fatal("no importer registered")
	}
	for _, im := range ims {
		name, ok := importFormatNames[im.Format()]
		if !ok {
			t.Errorf("format %s: importFormatNames does not say how the docs name it; add it, and name it in %s, %s and %s", im.Format(), docs[0].where, docs[1].where, docs[2].where)
			continue
		}
		for _, d := range docs {
			if !strings.Contains(d.text, name) {
				t.Errorf("format %s: %s does not name it (%q)", im.Format(), d.where, name)
			}
		}
	}
}
