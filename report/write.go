package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteJSON writes r as indented JSON followed by a newline. The output is
// stable: the same report always gives the same bytes.
func (r Report) WriteJSON(w io.Writer) error {
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

// CheckPath reports whether WriteFile can write a report at path, judged
// by its extension, so that a CLI can refuse a bad --report before the
// replay rather than after it.
func CheckPath(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if _, ok := formats[ext]; ok {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return fmt.Errorf("report %s: is a directory; name a file", path)
		}
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
			return fmt.Errorf("report %s: the folder %s does not exist; create it first", path, filepath.Dir(path))
		}
		return nil
	}
	if ext == "" {
		return fmt.Errorf("report %s: no extension; name the file %s", path, formatsKnown)
	}
	return fmt.Errorf("report %s: report format %s unknown; use %s", path, ext, formatsKnown)
}

// WriteFile writes r to path in the format its extension names — .json
// ([Report.WriteJSON]), .xml ([Report.WriteJUnit]), .html or .htm
// ([Report.WriteHTML]) — and does so atomically: a temporary file in the
// same directory is written, synced and renamed over path, so readers never
// see half a report.
// A non-nil redactor hides secrets in what is written.
func WriteFile(path string, r Report, redact ...*Redactor) error {
	if err := CheckPath(path); err != nil {
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
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("report %s: create temporary file (is the directory there and writable?): %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("report %s: write: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("report %s: chmod: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("report %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("report %s: close: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("report %s: rename into place: %w", path, err)
	}
	// Make the rename itself durable; not every system can sync a directory.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
