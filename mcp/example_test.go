package mcp_test

import (
	"fmt"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

func ExampleStandardHeaders() {
	var tools mcp.ToolHeaders
	_ = tools.Learn([]byte(`{"tools":[{"name":"weather","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}`))

	m, _ := jsonrpc.Parse([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"weather","arguments":{"region":"Zürich"}}}`))
	h := mcp.StandardHeaders("", m, &tools)
	for _, k := range []string{"Mcp-Method", "Mcp-Name", "Mcp-Param-Region"} {
		fmt.Printf("%s: %s\n", k, h.Get(k))
	}
	// Output:
	// Mcp-Method: tools/call
	// Mcp-Name: weather
	// Mcp-Param-Region: =?base64?WsO8cmljaA==?=
}

func ExampleSetRequestState() {
	// The recorded retry carried the recorded state; the live server
	// handed out another, which the retry must echo.
	recorded := []byte(`{"name":"quiz","arguments":{},"inputResponses":{"step1":{"action":"accept"}},"requestState":"round=1"}`)
	live, _ := mcp.RequestState([]byte(`{"resultType":"input_required","requestState":"round=1;seed=77","inputRequests":{"step1":{}}}`))
	params, _ := mcp.SetRequestState(recorded, live)
	fmt.Println(string(params))
	// Output:
	// {"name":"quiz","arguments":{},"inputResponses":{"step1":{"action":"accept"}},"requestState":"round=1;seed=77"}
}
