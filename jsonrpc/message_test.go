package jsonrpc

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		kind   Kind
		method string
		id     string
		params string
		result string
		errv   string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, KindRequest, "tools/call", `1`, `{"name":"x"}`, "", ""},
		{"request string id", `{"method":"ping","id":"a-1","jsonrpc":"2.0"}`, KindRequest, "ping", `"a-1"`, "", "", ""},
		{"request null id", `{"jsonrpc":"2.0","id":null,"method":"m"}`, KindRequest, "m", `null`, "", "", ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, "notifications/initialized", "", "", "", ""},
		{"notification array params", `{"jsonrpc":"2.0","method":"x/y","params":[1,2]}`, KindNotification, "x/y", "", `[1,2]`, "", ""},
		{"escaped method", `{"jsonrpc":"2.0","id":2,"method":"tools\/list"}`, KindRequest, "tools/list", `2`, "", "", ""},
		{"unicode method", `{"jsonrpc":"2.0","id":2,"method":"\u00e9t\u00e9"}`, KindRequest, "été", `2`, "", "", ""},
		{"response", `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`, KindResponse, "", `7`, "", `{"tools":[]}`, ""},
		{"response null result", `{"jsonrpc":"2.0","id":7,"result":null}`, KindResponse, "", `7`, "", `null`, ""},
		{"error", `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`, KindError, "", `"x"`, "", "", `{"code":-32601,"message":"no"}`},
		{"error null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, KindError, "", `null`, "", "", `{"code":-32700,"message":"parse"}`},
		{"spaces", " {\n \"jsonrpc\" : \"2.0\" , \"id\" : 3 ,\"result\": {} }\n", KindResponse, "", `3`, "", `{}`, ""},
		{"escaped key", `{"json\u0072pc":"2.0","\u0069d":4,"result":1}`, KindResponse, "", `4`, "", `1`, ""},
		{"unknown members kept", `{"jsonrpc":"2.0","id":4,"result":1,"x":{"id":9}}`, KindResponse, "", `4`, "", `1`, ""},
		{"batch", `[{"jsonrpc":"2.0","method":"a"}]`, KindBatch, "", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.raw))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if m.Kind != tt.kind || m.Method != tt.method || string(m.ID) != tt.id {
				t.Errorf("got kind %s method %q id %q, want %s %q %q", m.Kind, m.Method, m.ID, tt.kind, tt.method, tt.id)
			}
			if string(m.Params()) != tt.params || string(m.Result()) != tt.result || string(m.Error()) != tt.errv {
				t.Errorf("got params %q result %q error %q, want %q %q %q", m.Params(), m.Result(), m.Error(), tt.params, tt.result, tt.errv)
			}
			if (tt.id == "") != (m.ID == nil) {
				t.Errorf("got ID nil %v, want nil %v", m.ID == nil, tt.id == "")
			}
			if string(m.Raw) != tt.raw {
				t.Errorf("got Raw %q, want %q", m.Raw, tt.raw)
			}
			s, err := ParseStrict([]byte(tt.raw))
			if err != nil || s.Kind != m.Kind {
				t.Errorf("ParseStrict: got %s, %v; want %s, nil", s.Kind, err, m.Kind)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name, raw, why string
	}{
		{"empty", ``, "not a JSON object"},
		{"not object", `"x"`, "not a JSON object"},
		{"unclosed", `{"jsonrpc":"2.0","id":1`, "not closed"},
		{"trailing", `{"jsonrpc":"2.0","id":1,"result":1} x`, "data after"},
		{"no version", `{"id":1,"method":"m"}`, `missing "jsonrpc"`},
		{"old version", `{"jsonrpc":"1.0","id":1,"method":"m"}`, `jsonrpc is not "2.0"`},
		{"numeric version", `{"jsonrpc":2.0,"id":1,"method":"m"}`, `jsonrpc is not "2.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`, "id is an object"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"m"}`, "id is an array"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"m"}`, "id is a boolean"},
		{"missing method", `{"jsonrpc":"2.0","id":1}`, "missing method"},
		{"both result and error", `{"jsonrpc":"2.0","id":1,"result":1,"error":{}}`, "both result and error"},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"m","result":1}`, "both method and result"},
		{"method and error", `{"jsonrpc":"2.0","id":1,"method":"m","error":{}}`, "both method and error"},
		{"method not string", `{"jsonrpc":"2.0","id":1,"method":3}`, "method is not a string"},
		{"bad method escape", `{"jsonrpc":"2.0","id":1,"method":"a\x"}`, "method is not a valid JSON string"},
		{"scalar params", `{"jsonrpc":"2.0","method":"m","params":1}`, "params is not an object or array"},
		{"response without id", `{"jsonrpc":"2.0","result":1}`, "response without id"},
		{"error without id", `{"jsonrpc":"2.0","error":{"code":1}}`, "error response without id"},
		{"error not object", `{"jsonrpc":"2.0","id":1,"error":"bad"}`, "error is not an object"},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"result":1}`, `"id" appears twice`},
		{"empty batch", `[ ]`, "empty batch"},
		{"unclosed batch", `[{"jsonrpc":"2.0","method":"m"}`, "not closed"},
		{"after batch", `[1] 2`, "data after the batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse([]byte(tt.raw))
			if err == nil {
				t.Fatalf("got kind %s and no error, want error %q", m.Kind, tt.why)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("got %v, want it to wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.why) {
				t.Errorf("got error %q, want it to say %q", err, tt.why)
			}
			if m.Kind != KindInvalid || string(m.Raw) != tt.raw {
				t.Errorf("got kind %s raw %q, want invalid %q", m.Kind, m.Raw, tt.raw)
			}
		})
	}
}

func TestParseStrictRejectsBadGrammar(t *testing.T) {
	raw := `{"jsonrpc":"2.0","id":1,"result":[1,,2]}`
	if _, err := Parse([]byte(raw)); err != nil {
		t.Fatalf("Parse: got %v, want nil (Parse trusts the grammar)", err)
	}
	if _, err := ParseStrict([]byte(raw)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ParseStrict: got %v, want ErrInvalid", err)
	}
}

func TestBatch(t *testing.T) {
	raw := ` [ {"jsonrpc":"2.0","id":1,"method":"a"} , {"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":1,"result":{}}, 5, [1] ] `
	m, err := Parse([]byte(raw))
	if err != nil || m.Kind != KindBatch {
		t.Fatalf("Parse: got %s, %v; want batch, nil", m.Kind, err)
	}
	parts, err := m.Batch()
	want := []Kind{KindRequest, KindNotification, KindResponse, KindInvalid, KindInvalid}
	if len(parts) != len(want) {
		t.Fatalf("got %d parts, want %d", len(parts), len(want))
	}
	for i, p := range parts {
		if p.Kind != want[i] {
			t.Errorf("part %d: got %s, want %s", i, p.Kind, want[i])
		}
	}
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "batch element 3") || !strings.Contains(err.Error(), "batch element 4: jsonrpc: invalid message: a batch inside a batch") {
		t.Errorf("got error %v, want it to name elements 3 and 4", err)
	}
	if got := string(parts[1].Raw); got != `{"jsonrpc":"2.0","method":"b"}` {
		t.Errorf("part 1 raw: got %q", got)
	}
	if got := string(parts[0].WithID([]byte(`9`))); got != `{"jsonrpc":"2.0","id":9,"method":"a"}` {
		t.Errorf("part 0 WithID: got %q", got)
	}

	single, _ := Parse([]byte(`{"jsonrpc":"2.0","method":"b"}`))
	if _, err := single.Batch(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Batch of a notification: got %v, want ErrInvalid", err)
	}
}

func TestWithID(t *testing.T) {
	tests := []struct {
		name, raw, id, want string
	}{
		{"number to number", `{"jsonrpc":"2.0","id":1,"method":"m"}`, `42`, `{"jsonrpc":"2.0","id":42,"method":"m"}`},
		{"number to string", `{"jsonrpc":"2.0", "id" : 1 ,"method":"m"}`, `"r-1"`, `{"jsonrpc":"2.0", "id" : "r-1" ,"method":"m"}`},
		{"string to number", `{"id":"abcdef","jsonrpc":"2.0","result":{"id":"abcdef"}}`, `3`, `{"id":3,"jsonrpc":"2.0","result":{"id":"abcdef"}}`},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":1}}`, `5`, `{"jsonrpc":"2.0","id":5,"error":{"code":1}}`},
		{"notification unchanged", `{"jsonrpc":"2.0","method":"m"}`, `5`, `{"jsonrpc":"2.0","method":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := []byte(tt.raw)
			m, err := Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			got := m.WithID([]byte(tt.id))
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if len(got) > 0 && len(raw) > 0 && &got[0] == &raw[0] {
				t.Errorf("got the same backing array, want a new slice")
			}
			if string(raw) != tt.raw {
				t.Errorf("Raw changed: got %s, want %s", raw, tt.raw)
			}
			if app := m.AppendWithID([]byte("x"), []byte(tt.id)); string(app) != "x"+tt.want {
				t.Errorf("AppendWithID: got %s, want x%s", app, tt.want)
			}
		})
	}
}

func TestIDKey(t *testing.T) {
	tests := []struct {
		name, id, want string
	}{
		{"nil", "", ""},
		{"number", `1`, `1`},
		{"spaces", " 12 \n", `12`},
		{"decimal kept", `1.0`, `1.0`},
		{"string", `"1"`, `"1"`},
		{"escaped", `"\u0061b"`, `"ab"`},
		{"escaped slash", `"a\/b"`, `"a/b"`},
		{"quote kept escaped", `"a\"b"`, `"a\"b"`},
		{"control", `"a\nb"`, `"a\u000ab"`},
		{"null", `null`, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IDKey([]byte(tt.id)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			for _, other := range tests { // IDKeys is IDKey of each
				a, b := IDKeys([]byte(tt.id), []byte(other.id))
				if a != tt.want || b != other.want {
					t.Errorf("IDKeys(%s, %s) = %s, %s; want %s, %s", tt.id, other.id, a, b, tt.want, other.want)
				}
			}
		})
	}
	sent, rec := []byte(`1000041`), []byte(`41`)
	if n := testing.AllocsPerRun(100, func() { IDKeys(sent, rec) }); n != 1 {
		t.Errorf("IDKeys of two numbers: %.0f allocations, want 1", n)
	}
	if IDKey([]byte(`"1"`)) == IDKey([]byte(`1`)) {
		t.Errorf(`got "1" and 1 the same key, want different`)
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		k        Kind
		name     string
		response bool
	}{
		{KindInvalid, "invalid", false},
		{KindRequest, "request", false},
		{KindNotification, "notification", false},
		{KindResponse, "response", true},
		{KindError, "error", true},
		{KindBatch, "batch", false},
		{Kind(200), "invalid", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.k.String(); got != tt.name {
				t.Errorf("got %q, want %q", got, tt.name)
			}
			if got := IsResponseKind(tt.k); got != tt.response {
				t.Errorf("IsResponseKind: got %v, want %v", got, tt.response)
			}
		})
	}
}

func TestWithParams(t *testing.T) {
	m, err := Parse([]byte(`{"jsonrpc":"2.0", "id":7 ,"method":"tools/call","params": {"a":1} ,"x":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(m.WithParams([]byte(`{"b":[2]}`))), `{"jsonrpc":"2.0", "id":7 ,"method":"tools/call","params": {"b":[2]} ,"x":2}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	n, _ := Parse([]byte(`{"jsonrpc":"2.0","method":"ping"}`))
	if got := string(n.WithParams([]byte(`{}`))); got != `{"jsonrpc":"2.0","method":"ping"}` {
		t.Errorf("no params: got %s", got)
	}
}
