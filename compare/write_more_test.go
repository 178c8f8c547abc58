package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestMorePathsShownAsACount: an answer that differs at more paths than
// the validator lists has one path "…" whose example is how many more;
// the text showed it as a value, `(absent) → 27`, and the HTML alike.
// The HTML runs table named its last column "target" twice.
func TestMorePathsShownAsACount(t *testing.T) {
	r := &Report{
		Runs: []RunInfo{{Role: RolePrimary, Target: "a", Answers: 1}, {Role: RoleCandidate, Target: "b", Answers: 1}},
		Changed: []Path{{Method: "tools/list", Path: MorePaths, Total: 1, Raw: 1, Changed: true,
			Example: &Example{Session: "s1", Seq: 2, Candidate: json.RawMessage(`27`)}}},
	}
	r.Paths = r.Changed
	var text, html bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "html": html.String()} {
		if !strings.Contains(out, "s1 seq 2: 27 more differences") || strings.Contains(out, "→ 27") || strings.Contains(out, "→ <code>27") {
			t.Errorf("%s: want \"s1 seq 2: 27 more differences\", not the count shown as a value:\n%s", name, out)
		}
	}
	if strings.Count(html.String(), "<th>target</th>") != 1 {
		t.Errorf("html: the runs table names two columns \"target\":\n%s", html.String())
	}
}
