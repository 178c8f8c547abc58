package validator

import "testing"

func TestCheckSchema(t *testing.T) {
	const env = `"jsonrpc":"2.0","id":1,`
	tests := []struct {
		name, method, act string
		want              []string
	}{
		{"initialize ok", "initialize", `{` + env + `"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, nil},
		{"initialize bad", "initialize", `{` + env + `"result":{"protocolVersion":20250618,"serverInfo":{"name":"s"}}}`, []string{
			`type result.protocolVersion "string" 20250618`,
			`missing result.capabilities "object" `,
			`missing result.serverInfo.version "string" `,
		}},
		{"tools/list ok", "tools/list", `{` + env + `"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`, nil},
		{"tools/list empty", "tools/list", `{` + env + `"result":{"tools":[]}}`, nil},
		{"tools/list bad", "tools/list", `{` + env + `"result":{"tools":[{"name":"a","inputSchema":{}},{"inputSchema":"x"},3]}}`, []string{
			`missing result.tools[1].name "string" `,
			`type result.tools[1].inputSchema "object" "x"`,
			`type result.tools[2] "object" 3`,
		}},
		{"tools/list no tools", "tools/list", `{` + env + `"result":{}}`, []string{`missing result.tools "array" `}},
		{"tools/call content", "tools/call", `{` + env + `"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}`, nil},
		{"tools/call structured", "tools/call", `{` + env + `"result":{"structuredContent":{"t":1}}}`, nil},
		{"tools/call neither", "tools/call", `{` + env + `"result":{"isError":"no"}}`, []string{
			`type result.isError "boolean" "no"`,
			`missing result "content or structuredContent" `,
		}},
		{"tools/call content type", "tools/call", `{` + env + `"result":{"content":[{"text":"hi"},{"type":1}]}}`, []string{
			`missing result.content[0].type "string" `,
			`type result.content[1].type "string" 1`,
		}},
		{"resources/list", "resources/list", `{` + env + `"result":{"resources":[{"uri":"file:///a"}]}}`, []string{`missing result.resources[0].name "string" `}},
		{"resources/read", "resources/read", `{` + env + `"result":{"contents":[{"uri":"file:///a","text":"x"}]}}`, nil},
		{"prompts/list", "prompts/list", `{` + env + `"result":{"prompts":[{"name":"p"},{}]}}`, []string{`missing result.prompts[1].name "string" `}},
		{"prompts/get", "prompts/get", `{` + env + `"result":{"messages":{}}}`, []string{`type result.messages "array" {}`}},
		{"ping ok", "ping", `{` + env + `"result":{}}`, nil},
		{"ping bad", "ping", `{` + env + `"result":[]}`, []string{`type result "object" []`}},
		{"completion", "completion/complete", `{` + env + `"result":{"completion":{"values":["a",2]}}}`, []string{`type result.completion.values[1] "string" 2`}},
		{"error ok", "tools/call", `{` + env + `"error":{"code":-32602,"message":"bad","data":{}}}`, nil},
		{"error integer as float", "tools/call", `{` + env + `"error":{"code":-32602.0,"message":"bad"}}`, nil},
		{"error bad", "tools/call", `{` + env + `"error":{"code":"x"}}`, []string{`type error.code "integer" "x"`, `missing error.message "string" `}},
		{"unknown method any result", "x/y", `{` + env + `"result":[1]}`, nil},
		{"no jsonrpc", "x/y", `{"id":1,"result":{}}`, []string{`missing jsonrpc "string" `}},
		{"wrong jsonrpc", "x/y", `{"jsonrpc":"1.0","id":1,"result":{}}`, []string{`changed jsonrpc "2.0" "1.0"`}},
		{"neither result nor error", "x/y", `{` + env + `"x":1}`, []string{`missing $ "result or error" `}},
		{"both", "x/y", `{` + env + `"result":{},"error":{"code":1,"message":"m"}}`, []string{`added error "result or error, not both" {"code":1,"message":"m"}`}},
		{"not an object", "x/y", `[1]`, []string{`type $ "object" [1]`}},
		{"notification", "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, nil},
		// MCP 2026-07-28: result types, cache hints, discovery, tasks.
		{"2026 tools/call complete", "tools/call", `{` + env + `"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}}`, nil},
		{"2026 tools/call input_required", "tools/call", `{` + env + `"result":{"content":null,"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{}}}}}`, nil},
		{"2026 input_required state only", "prompts/get", `{` + env + `"result":{"messages":null,"resultType":"input_required","requestState":"round=1"}}`, nil},
		{"2026 input_required bad state", "tools/call", `{` + env + `"result":{"resultType":"input_required","requestState":7}}`, []string{`type result.requestState "string" 7`}},
		{"2026 input_required empty", "tools/call", `{` + env + `"result":{"resultType":"input_required"}}`, []string{`missing result "inputRequests or requestState" `}},
		{"2026 task", "tools/call", `{` + env + `"result":{"resultType":"task","taskId":"t1","status":"working","ttlMs":60000}}`, nil},
		{"2026 task bad", "tools/call", `{` + env + `"result":{"resultType":"task","status":"working"}}`, []string{`missing result.taskId "string" `}},
		{"2026 cache hints", "tools/list", `{` + env + `"result":{"tools":[],"ttlMs":"0","cacheScope":"public"}}`, []string{`type result.ttlMs "integer" "0"`}},
		{"server/discover", "server/discover", `{` + env + `"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`, nil},
		{"server/discover bad", "server/discover", `{` + env + `"result":{"capabilities":{}}}`, []string{`missing result.supportedVersions "array" `}},
		{"notification bad method", "", `{"jsonrpc":"2.0","method":5}`, []string{`type method "string" 5`}},
	}
	v := mustNew(t, WithMode(Schema))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Check(Subject{Method: tt.method}, nil, []byte(tt.act))
			if err != nil {
				t.Fatal(err)
			}
			check(t, got.Diffs, tt.want)
		})
	}
}

func TestCheckSchemaIgnore(t *testing.T) {
	v := mustNew(t, WithMode(Schema), WithIgnore("result.tools[*].inputSchema"))
	got, err := v.Check(Subject{Method: "tools/list"}, nil, []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	check(t, got.Diffs, nil)
}
