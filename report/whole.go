package report

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ReadWhole reads the JSON report at path as [Read] does, and refuses,
// with an error wrapping [ErrBadReport], one that lacks what every
// report replayctl has written holds (see [ParseWhole]): replayctl
// report and merge read with it. [Read] also takes a chaos plan in the
// report's shape (a shrink's, which has only summary.tape and chaos),
// for run --chaos-from.
func ReadWhole(path string) (*Report, error) { return read(path, ParseWhole) }

// ParseWhole decodes a JSON report as [Parse] does, and refuses one that
// lacks a member every writer of a report has set since its first
// version (README's "Reports" names them all): summary's tape, sessions,
// total_messages, sent, received, skipped, duration_ms and
// success_rate, a performance object, and validation's checked, passed
// and failed. A member present with a zero value is a report's (a run
// that sent nothing); one absent, or null, is not: {"summary":{}} is no
// report.
func ParseWhole(data []byte) (*Report, error) {
	r, err := Parse(data)
	if err != nil {
		return nil, err
	}
	if err := checkWhole(data); err != nil {
		return nil, err
	}
	return r, nil
}

// wholeSummary and wholeValidation are the members of those sections
// that every report has (ParseWhole).
var (
	wholeSummary    = []string{"tape", "sessions", "total_messages", "sent", "received", "skipped", "duration_ms", "success_rate"}
	wholeValidation = []string{"checked", "passed", "failed"}
)

// checkWhole returns an error wrapping ErrBadReport naming the members
// of a report that data, a JSON object Parse has read, lacks.
func checkWhole(data []byte) error {
	var doc struct {
		Summary     map[string]json.RawMessage `json:"summary"`
		Performance map[string]json.RawMessage `json:"performance"`
		Validation  map[string]json.RawMessage `json:"validation"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return notAReport(fmt.Sprintf("its sections are not objects: %v", err))
	}
	var missing []string
	lacks := func(section string, m map[string]json.RawMessage, keys []string) {
		for _, k := range keys {
			if v, ok := m[k]; !ok || string(v) == "null" {
				missing = append(missing, section+"."+k)
			}
		}
	}
	lacks("summary", doc.Summary, wholeSummary)
	if doc.Performance == nil {
		missing = append(missing, "performance")
	}
	if doc.Validation == nil {
		missing = append(missing, "validation")
	} else {
		lacks("validation", doc.Validation, wholeValidation)
	}
	if len(missing) == 0 {
		return nil
	}
	what := strings.Join(missing[:min(len(missing), 4)], ", ")
	if len(missing) > 4 {
		what += fmt.Sprintf(" and %d more", len(missing)-4)
	}
	return notAReport("it has no " + what + ", which every report has")
}
