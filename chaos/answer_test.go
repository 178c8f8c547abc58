package chaos

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

func TestMutateAnswer(t *testing.T) {
	answer := []byte(`{"jsonrpc":"2.0","id":"abc","result":{"content":[]}}`)
	tests := []struct {
		name    string
		fault   Fault
		check   func(out []byte) bool
		explain string
	}{
		{"timeout", Fault{Kind: Timeout}, func(out []byte) bool { return out == nil }, "nothing"},
		{"network-error", Fault{Kind: NetworkError, Param: 1}, func(out []byte) bool { return out == nil }, "nothing"},
		{"invalid-response not JSON", Fault{Kind: InvalidResponse, Param: 0}, func(out []byte) bool { return !json.Valid(out) }, "not JSON"},
		{"invalid-response truncated", Fault{Kind: InvalidResponse, Param: 1 | 5<<8}, func(out []byte) bool {
			return !json.Valid(out) && bytes.HasPrefix(answer, out)
		}, "a prefix that is not JSON"},
		{"invalid-response wrong id", Fault{Kind: InvalidResponse, Param: 2}, func(out []byte) bool {
			m, err := jsonrpc.ParseStrict(out)
			return err == nil && m.Kind == jsonrpc.KindResponse && jsonrpc.IDKey(m.ID) != `"abc"`
		}, "a response with another id"},
		{"invalid-response version", Fault{Kind: InvalidResponse, Param: 3}, func(out []byte) bool {
			_, err := jsonrpc.ParseStrict(out)
			return json.Valid(out) && err != nil
		}, "valid JSON, not JSON-RPC"},
		{"error-response internal", Fault{Kind: ErrorResponse, Param: 0}, isError(`"abc"`, CodeInternalError), "error -32603 for id abc"},
		{"error-response server", Fault{Kind: ErrorResponse, Param: 1}, isError(`"abc"`, CodeServerError), "error -32000 for id abc"},
		{"outbound kind", Fault{Kind: Malformed}, func(out []byte) bool { return bytes.Equal(out, answer) }, "the answer unchanged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := MutateAnswer(tt.fault, answer)
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if !tt.check(out) {
				t.Errorf("got %q, want %s", out, tt.explain)
			}
		})
	}
	t.Run("error-response to garbage", func(t *testing.T) {
		out, err := MutateAnswer(Fault{Kind: ErrorResponse}, []byte("garbage"))
		if err != nil || !isError("null", CodeInternalError)(out) {
			t.Errorf("got %q, %v, want an error with id null", out, err)
		}
	})
	t.Run("unknown kind", func(t *testing.T) {
		if _, err := MutateAnswer(Fault{Kind: "nope"}, answer); err == nil {
			t.Errorf("got no error, want one")
		}
	})
}

func isError(id string, code int) func([]byte) bool {
	return func(out []byte) bool {
		m, err := jsonrpc.ParseStrict(out)
		if err != nil || m.Kind != jsonrpc.KindError || jsonrpc.IDKey(m.ID) != id {
			return false
		}
		var e struct{ Code int }
		return json.Unmarshal(m.Error(), &e) == nil && e.Code == code
	}
}

func TestExpect(t *testing.T) {
	tests := []struct {
		fault Fault
		want  string
	}{
		{Fault{Kind: Malformed, MsgKind: "request"}, "error -32700"},
		{Fault{Kind: Malformed, MsgKind: "notification"}, "error -32700"},
		{Fault{Kind: Invalid, MsgKind: "request"}, "error -32600"},
		{Fault{Kind: UnknownMethod, MsgKind: "request"}, "error -32601"},
		{Fault{Kind: UnknownMethod, MsgKind: "notification"}, "no answer"},
		{Fault{Kind: BadParams, MsgKind: "request", Param: badTypes}, "error -32602"},
		{Fault{Kind: BadParams, MsgKind: "", Param: badDropField}, "error -32602"},
		{Fault{Kind: BadParams, MsgKind: "notification", Param: badTypes}, "no answer"},
		{Fault{Kind: BadParams, MsgKind: "request", Param: badHugeString}, "any answer, must not crash"},
		{Fault{Kind: BadParams, MsgKind: "request", Param: badDeepNesting}, "any answer, must not crash"},
		{Fault{Kind: Drop, MsgKind: "request"}, "no answer"},
		{Fault{Kind: Duplicate, MsgKind: "request"}, "any answer, must not crash"},
		{Fault{Kind: Burst, MsgKind: "request"}, "the recorded answer"},
		{Fault{Kind: SlowWrite, MsgKind: "response"}, "no answer"},
		{Fault{Kind: Timeout, MsgKind: "request"}, "any answer, must not crash"},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault.Kind)+"/"+tt.fault.MsgKind, func(t *testing.T) {
			if got := Expect(tt.fault).String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
