package report

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"time"

	"github.com/replayctl/replayctl/scheduler"
)

// Read reads the JSON report at path, as [Report.WriteJSON] wrote it
// (replayctl run --report FILE.json). Fields it does not know are
// ignored. Errors wrap [ErrBadReport] for a file that is not such a
// report, naming the file and the line or field; [Merge] names the file in
// its errors too. It takes any object with a summary, a chaos plan in the
// report's shape included; [ReadWhole] takes a whole report only.
func Read(path string) (*Report, error) { return read(path, Parse) }

// read reads the file at path and decodes it with parse.
func read(path string, parse func([]byte) (*Report, error)) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, fmt.Errorf("report %s: it is a folder, not a report: give a JSON report file (replayctl run --report FILE.json)", path)
		}
		var pe *fs.PathError
		why := err
		if errors.As(err, &pe) {
			why = pe.Err // the path is said once
		}
		return nil, fmt.Errorf("report %s: cannot open it (%w): check the path", path, why)
	}
	r, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("report %s: %w", path, err)
	}
	r.source = path
	return r, nil
}

// Parse decodes a JSON report. Errors wrap [ErrBadReport] and say where
// the data is wrong: the line of a syntax error, the field of a value of
// the wrong type.
func Parse(data []byte) (*Report, error) {
	var r Report
	// Summary shadows r's (the shallower field wins), so that a document
	// without one is told from a report whose summary is all zeros.
	doc := struct {
		*Report
		Summary *Summary `json:"summary"`
		// Margins is in compare's report (of other figures, with a
		// summary of its own), never in a replay's.
		Margins json.RawMessage `json:"margins"`
	}{Report: &r}
	err := json.Unmarshal(data, &doc)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var speed *scheduler.SpeedError
	switch {
	case err == nil:
		if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
			return nil, notAReport("null")
		}
		if doc.Summary == nil { // every report has one, and so has a shrink's chaos plan
			return nil, notAReport("no summary")
		}
		if doc.Margins != nil {
			return nil, notAReport("replayctl compare wrote it: a comparison of servers, not a replay")
		}
		r.Summary = *doc.Summary
		return &r, nil
	case errors.As(err, &syntax):
		return nil, errorf(ErrBadReport, "line %d: not JSON (%v); give a JSON report as replayctl run --report FILE.json writes it", lineOf(data, syntax.Offset), syntax)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return nil, notAReport(fmt.Sprintf("a JSON %s, not an object", typ.Value))
		}
		return nil, errorf(ErrBadReport, "line %d: %s: a JSON %s where %s belongs", lineOf(data, typ.Offset), field, typ.Value, jsonKind(typ.Type))
	case errors.As(err, &speed): // only summary.speed is parsed as a speed
		return nil, errorf(ErrBadReport, "summary.speed: %v", speed)
	default:
		return nil, errorf(ErrBadReport, "%v", err)
	}
}

// notAReport is the error of JSON that is well formed but not a
// replayctl report ({}, another tool's file, a tape line); why says what
// gave it away.
func notAReport(why string) error {
	return errorf(ErrBadReport, "not a replayctl report (%s): give the JSON file replayctl run --report FILE.json or -o json wrote", why)
}

// jsonKind names what JSON value a Go type takes.
func jsonKind(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) && t != reflect.TypeFor[time.Time]() {
		return "a string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		if t == reflect.TypeFor[time.Time]() {
			return "a time (RFC 3339)"
		}
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return "a time (RFC 3339)"
		}
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	default:
		return "a number"
	}
}

// lineOf is the 1-based line of the byte at offset.
func lineOf(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// tagged is an error that [errors.Is] its sentinel and reads as its
// message alone, so that a chain of them does not repeat "report: bad
// report" at each step.
type tagged struct{ sentinel, err error }

func (e tagged) Error() string   { return e.err.Error() }
func (e tagged) Unwrap() []error { return []error{e.sentinel, e.err} }

// errorf is fmt.Errorf(format, a...) tagged with sentinel.
func errorf(sentinel error, format string, a ...any) error {
	return tagged{sentinel, fmt.Errorf(format, a...)}
}
