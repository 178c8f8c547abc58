package jsonrpc

import (
	"encoding/json"
	"testing"
)

func TestErrorResponse(t *testing.T) {
	tests := []struct {
		name    string
		id      []byte
		code    int
		message string
		data    []byte
		want    string
	}{
		{"number id", []byte(`7`), -32601, "Method not found", nil, `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`},
		{"string id", []byte(`"a"`), -32603, `say "hi"`, nil, `{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"say \"hi\""}}`},
		{"no id", nil, -32700, "Parse error", nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"escaped", []byte(`1`), -32000, "a<b>&c\n\u2028", nil, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"a\u003cb\u003e\u0026c\n\u2028"}}`},
		{"data", []byte(`1`), -32042, "miss", []byte(`{"seq":3}`), `{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"miss","data":{"seq":3}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorResponse(tt.id, tt.code, tt.message, tt.data)
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			m, err := ParseStrict(got)
			if err != nil || !IsResponseKind(m.Kind) || len(m.Error()) == 0 {
				t.Errorf("not a JSON-RPC error response: %v", err)
			}
			var v struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(got, &v); err != nil || v.Error.Code != tt.code || v.Error.Message != tt.message {
				t.Errorf("decoded %+v, %v: want code %d, message %q", v, err, tt.code, tt.message)
			}
		})
	}
}
