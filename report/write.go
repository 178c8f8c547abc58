package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/tape"
)

// WriteJSON writes r as indented JSON followed by a newline. The output is
// stable: the same report always gives the same bytes. The timeline, most
// of a long replay's report, is written without reflection, in the bytes
// encoding/json gives it.
func (r Report) WriteJSON(w io.Writer) error {
	if done, err := r.writeJSONSpliced(w); done {
		if err != nil {
			return fmt.Errorf("report: write JSON: %w", err)
		}
		return nil
	}
	return r.writeJSONReflect(w)
}

// writeJSONReflect is WriteJSON by encoding/json alone.
func (r Report) writeJSONReflect(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("report: write JSON: %w", err)
	}
	return nil
}

// formats maps a report file's extension to its writer.
var formats = map[string]func(r Report, w io.Writer) error{
	".json": Report.WriteJSON,
	".xml":  Report.WriteJUnit,
	".html": Report.WriteHTML,
	".htm":  Report.WriteHTML,
}

const formatsKnown = ".json, .xml (JUnit) or .html"

// CheckPath reports whether WriteFile can write a report at path, so that
// a CLI can refuse a bad --report before the replay rather than after it:
// the extension must name a format, path must not be a folder, and its
// folder must exist and take a new file (a temporary one is created there
// and removed).
func CheckPath(path string) error {
	if err := checkName(path); err != nil {
		return err
	}
	if err := atomicfile.Probe(path); err != nil {
		return fmt.Errorf("report %s: cannot write in the folder %s (%v); choose a folder you can write to", path, filepath.Dir(path), unwrapPath(err))
	}
	return nil
}

// checkName is CheckPath without the probe: the format, and the folder.
func checkName(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if _, ok := formats[ext]; ok {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return fmt.Errorf("report %s: is a directory; name a file", path)
		}
		switch fi, err := os.Stat(filepath.Dir(path)); {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("report %s: %s is a file, not a folder; name a file in a folder", path, filepath.Dir(path))
		case err != nil:
			return fmt.Errorf("report %s: the folder %s does not exist; create it first", path, filepath.Dir(path))
		}
		return nil
	}
	if ext == "" {
		return fmt.Errorf("report %s: no extension; name the file %s", path, formatsKnown)
	}
	return fmt.Errorf("report %s: report format %s unknown; use %s", path, ext, formatsKnown)
}

// unwrapPath is the reason of an *os.PathError, without the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteFile writes r to path in the format its extension names — .json
// ([Report.WriteJSON]), .xml ([Report.WriteJUnit]), .html or .htm
// ([Report.WriteHTML]) — and does so atomically: a temporary file in the
// same directory (".NAME.replayctl-tmp-PID-…") is written, synced and
// renamed over path, so readers never see half a report. Temporary files
// of path that a killed writer left behind are removed first, once their
// process is gone.
// A non-nil redactor hides secrets in what is written.
func WriteFile(path string, r Report, redact ...*tape.Redactor) error {
	if err := checkName(path); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := formats[strings.ToLower(filepath.Ext(path))](r, &buf); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	data := buf.Bytes()
	for _, rd := range redact {
		data = rd.Bytes(data)
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to path through a synced temporary file renamed
// into place.
func writeAtomic(path string, data []byte) error {
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("report %s: create temporary file (is the directory there and writable?): %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Abort()
		return fmt.Errorf("report %s: write: %w", path, err)
	}
	if err := tmp.Commit(); err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return nil
}
