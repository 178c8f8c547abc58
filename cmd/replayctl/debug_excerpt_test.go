package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/report"
)

// TestDebugDiffShowsExcerptsAsJSON: a value too long for a report is kept
// as an excerpt, a JSON string of the start of its JSON text; the
// debugger's diff shows that text as JSON ([{"name":…), not as a JSON
// string of JSON ("[{\"name\":…).
func TestDebugDiffShowsExcerptsAsJSON(t *testing.T) {
	tools := `[{"name":"` + strings.Repeat("t", 5000) + `"}]`
	d := report.BoundDifferences([]report.Difference{{Path: "result.tools", Actual: json.RawMessage(tools)}})[0]
	for name, line := range map[string]string{"diffLine": diffLine(d), "diffFull": diffFull(d)} {
		if !strings.HasPrefix(line, `result.tools: (absent) → [{"name":"ttt`) || strings.Contains(line, `\"`) {
			t.Errorf("%s: %.120s; want the excerpt as JSON text, [{\"name\":\"ttt…", name, line)
		}
	}
	if full := diffFull(d); !strings.HasSuffix(full, "("+strconv.Itoa(len(tools))+" bytes)") {
		t.Errorf("diffFull: …%s; want the excerpt's size at its end", full[max(0, len(full)-40):])
	}
	// A string stays a JSON string.
	s := report.Difference{Path: "result.text", Expected: json.RawMessage(`"a"`), Actual: json.RawMessage(`"b"`)}
	if got := diffLine(s); got != `result.text: "a" → "b"` {
		t.Errorf("diffLine: %s; want %s", got, `result.text: "a" → "b"`)
	}
}
