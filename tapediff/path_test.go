package tapediff

import (
	"slices"
	"testing"

	"github.com/replayctl/replayctl/internal/jsonpath"
)

// TestOddSchemaKeywordPath: a schema keyword whose name is not plain
// (x-ui.hint, a space) is written quoted in the change's path, as the
// validator writes member names, so that the path names that one member
// and reads back as it.
func TestOddSchemaKeywordPath(t *testing.T) {
	a := `{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string","x-ui.hint":"a","x y":1}}}}`
	b := `{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string","x-ui.hint":"b","x y":2}}}}`
	res, err := Compare(sideOf("a.jsonl", "", toolsList(a)), sideOf("b.jsonl", "", toolsList(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`schema_changed echo inputSchema.properties.message["x y"]`, `schema_changed echo inputSchema.properties.message["x-ui.hint"]`}
	if got := changes(res); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	for _, c := range res.Changes {
		p, err := jsonpath.ParsePath(c.Path)
		if err != nil || len(p) != 4 {
			t.Errorf("%s: got %v, %v; want 4 steps", c.Path, p, err)
		}
	}
}
