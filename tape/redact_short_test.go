package tape

import "testing"

// A secret shorter than MinTextSecretLen ("x", "ab") is hidden only
// where it is a whole JSON string value, never as a part of other text:
// masked as a substring, AUTH_TOKEN=x wiped every "x" out of a report
// ("e[redacted]amples/quickstart.jsonl").
func TestRedactorOfShortSecret(t *testing.T) {
	r := RedactorOf([]string{"x", "a very long secret"})
	for _, c := range []struct{ in, want string }{
		{`Replay of examples/quickstart.jsonl --max-inflight`, `Replay of examples/quickstart.jsonl --max-inflight`},
		{`{"tape":"examples/x.jsonl","token":"x"}`, `{"tape":"examples/x.jsonl","token":"[redacted]"}`},
		{`{"error":"{\"token\":\"x\"}"}`, `{"error":"{\"token\":\"[redacted]\"}"}`},
		{`max x "x"`, `max x "[redacted]"`},
		{`it said a very long secret`, `it said [redacted]`},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}
