package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/replayctl/replayctl/validator"
)

// TestDifferenceJSON checks the report's JSON of a difference: an absent
// value is null (the validator's own JSON leaves it out), and HTML is
// escaped as the caller's encoder says.
func TestDifferenceJSON(t *testing.T) {
	v := validator.Difference{Path: "result.<b>", Actual: json.RawMessage(`"a&b"`), Kind: validator.DiffAdded}
	tests := []struct {
		name       string
		escapeHTML bool
		value      any
		want       string
	}{
		{"report", true, Difference(v), `{"path":"result.\u003cb\u003e","expected":null,"actual":"a\u0026b","kind":"added"}`},
		{"report unescaped", false, Difference(v), `{"path":"result.<b>","expected":null,"actual":"a&b","kind":"added"}`},
		{"validator", true, v, `{"path":"result.\u003cb\u003e","actual":"a\u0026b","kind":"added"}`},
		{"report list", false, []Difference{Difference(v)}, `[{"path":"result.<b>","expected":null,"actual":"a&b","kind":"added"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(tt.escapeHTML)
			if err := enc.Encode(tt.value); err != nil {
				t.Fatal(err)
			}
			if got := string(bytes.TrimSpace(b.Bytes())); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
