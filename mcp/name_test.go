package mcp

import "testing"

func TestRequestName(t *testing.T) {
	for _, tt := range []struct {
		method, params, want string
	}{
		{MethodToolsCall, `{"name":"search","arguments":{"name":"not this"}}`, "search"},
		{MethodToolsCall, `{"arguments":{"q":1},"name":"echo"}`, "echo"},
		{MethodToolsCall, `{"n\u0061me":"escaped key"}`, "escaped key"},
		{MethodToolsCall, `{"name":"caf\u00e9"}`, "café"},
		{MethodPromptsGet, `{"name":"greet"}`, "greet"},
		{MethodResourcesRead, `{"uri":"test://static/resource/1","name":"not this"}`, "test://static/resource/1"},
		{MethodToolsCall, `{"name":42}`, ""},
		{MethodToolsCall, `[1]`, ""},
		{MethodToolsCall, ``, ""},
		{MethodToolsList, `{"name":"x"}`, ""},
		{MethodTasksGet, `{"taskId":"t1"}`, ""},
	} {
		if got := RequestName(tt.method, []byte(tt.params)); got != tt.want {
			t.Errorf("RequestName(%s, %s) = %q, want %q", tt.method, tt.params, got, tt.want)
		}
	}
}
