package report

import (
	"encoding/json"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

func TestSensitivePath(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"params.password", true}, {"result.headers.Authorization", true}, {`params["api-key"]`, true},
		{`params["x.y"].token`, true}, {"result.items[3].access_token.value", true}, {"$.secret", true},
		{`params["a\"token"]`, true}, {"params.db_password", true}, {"result.auth.bearer", true},
		{"result.content[0].text", false}, {"params.maxTokens", false}, {`params["a\"b"]`, false}, {"$", false}, {"", false},
	}
	for _, tc := range tests {
		if got := tape.SecretPath(tc.path); got != tc.want {
			t.Errorf("SecretPath(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestMask(t *testing.T) {
	diffs := []Difference{
		{Path: "result.access_token", Expected: json.RawMessage(`"old-AAA"`), Actual: json.RawMessage(`"new-BBB"`), Kind: "changed"},
		{Path: "result.token", Expected: json.RawMessage(`null`), Kind: "missing"},
		{Path: "result", Expected: json.RawMessage(`{"user":"ann","password":"p1"}`), Actual: json.RawMessage(`{"user":"bob","password":"p2"}`), Kind: "changed"},
		{Path: "result.user", Expected: json.RawMessage(`"ann"`), Actual: json.RawMessage(`"bob"`), Kind: "changed"},
	}
	res := Redact(nil, Result{
		Out:         []byte(`{"jsonrpc":"2.0","id":1,"method":"login","params":{"password":"hunter2"}}`),
		Answer:      []byte(`{"jsonrpc":"2.0","id":1,"result":{"access_token":"new-BBB"}}`),
		Differences: diffs,
	})
	want := []Difference{
		{Path: "result.access_token", Expected: json.RawMessage(`"[redacted]"`), Actual: json.RawMessage(`"[redacted]"`), Kind: "changed"},
		{Path: "result.token", Expected: json.RawMessage(`null`), Kind: "missing"},
		{Path: "result", Expected: json.RawMessage(`{"user":"ann","password":"[redacted]"}`), Actual: json.RawMessage(`{"user":"bob","password":"[redacted]"}`), Kind: "changed"},
		{Path: "result.user", Expected: json.RawMessage(`"ann"`), Actual: json.RawMessage(`"bob"`), Kind: "changed"},
	}
	for i, d := range res.Differences {
		if d.Path != want[i].Path || string(d.Expected) != string(want[i].Expected) || string(d.Actual) != string(want[i].Actual) {
			t.Errorf("difference %d: got %s: %s → %s, want %s → %s", i, d.Path, d.Expected, d.Actual, want[i].Expected, want[i].Actual)
		}
	}
	if string(diffs[0].Expected) != `"old-AAA"` {
		t.Errorf("Mask changed the caller's differences")
	}
	if string(res.Out) != `{"jsonrpc":"2.0","id":1,"method":"login","params":{"password":"[redacted]"}}` ||
		string(res.Answer) != `{"jsonrpc":"2.0","id":1,"result":{"access_token":"[redacted]"}}` {
		t.Errorf("messages not masked: %s %s", res.Out, res.Answer)
	}
}
