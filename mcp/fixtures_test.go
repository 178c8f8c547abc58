package mcp

// Wire captures from /work/issue12-findings.md (go-sdk v1.8.0 client and
// the conformance everything-server), and the task shapes of the
// specifications (2025-11-25 tasks, SEP-2663).

// meta is the _meta a go-sdk 2026 client puts on every request (§7).
const meta = `{"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"probe","version":"0.1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`

const serverInfo = `{"io.modelcontextprotocol/serverInfo":{"name":"mcp-conformance-test-server","version":"1.0.0"}}`

var (
	// E1: server/discover.
	capDiscover    = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + meta + `}}`
	capDiscoverRes = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":` + serverInfo + `,"ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}}}`

	// E2: tools/list, with the x-mcp-header tool.
	capToolsList    = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + meta + `}}`
	capToolsListRes = `{"resultType":"complete","_meta":` + serverInfo + `,"ttlMs":0,"cacheScope":"public","tools":[` +
		`{"inputSchema":{"type":"object"},"name":"test_simple_text"},` +
		`{"description":"Tests SEP-2243 Mcp-Param-* server-side validation","inputSchema":{"type":"object","properties":{` +
		`"region":{"type":"string","description":"mirrored into Mcp-Param-Region","x-mcp-header":"Region"},` +
		`"level":{"type":"integer","description":"non-mirrored argument"}}},"name":"test_x_mcp_header"}]}`

	// E3: tools/call with a param header; with progress.
	capCallRegion   = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":` + meta + `,"name":"test_x_mcp_header","arguments":{"level":3,"region":"Zürich"}}}`
	capCallProgress = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p1"},"name":"test_tool_with_progress","arguments":{}}}`
	capProgress     = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","message":"Completed step 0 of 100","progress":0,"total":100}}`

	// The MRTR multi-round exchange (§2).
	capRound1    = `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":` + meta + `,"name":"test_input_required_result_multi_round","arguments":{}}}`
	capRound1Res = `{"_meta":` + serverInfo + `,"content":null,"requestState":"round=1","resultType":"input_required","inputRequests":{"step1":{"method":"elicitation/create","params":{"mode":"form","message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}}`
	capRound2    = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":` + meta + `,"name":"test_input_required_result_multi_round","arguments":{},"inputResponses":{"step1":{"action":"accept","content":{"name":"Ada"}}},"requestState":"round=1"}}`
	capRound2Res = `{"_meta":` + serverInfo + `,"content":null,"requestState":"round=2;name=Ada","resultType":"input_required","inputRequests":{"step2":{"method":"elicitation/create","params":{"mode":"form","message":"Step 2: What is your favorite color?"}}}}`
	capRound3Res = `{"_meta":` + serverInfo + `,"content":[{"type":"text","text":"Multi-round complete: Ada likes blue"}],"resultType":"complete"}`
	// E4: an elicitation round without requestState, and its retry.
	capElicitRes   = `{"_meta":` + serverInfo + `,"content":null,"resultType":"input_required","inputRequests":{"user_name":{"method":"elicitation/create","params":{"mode":"form","message":"What is your name?"}}}}`
	capElicitRetry = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":` + meta + `,"name":"test_input_required_result_elicitation","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}}}`

	// The 2025-11-25 session (§7 comparison, §1.6 fallback).
	capInitialize  = `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"clientInfo":{"name":"probe","version":"0.1"},"protocolVersion":"2025-11-25","capabilities":{}}}`
	capInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`
	capLegacyCall  = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"who?"}}}`
	capElicitation = `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"form","message":"who?"}}`
	capElicitAns   = `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"Ada"}}}`

	// Errors (§1.4).
	capUnsupported = `{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2027-01-01"}}`
	capNoMethodHdr = `{"code":-32020,"message":"missing required Mcp-Method header"}`
	capPing2026    = `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":` + meta + `}}`

	// Tasks, 2025-11-25 (§4a).
	task25Create = `{"task":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":60000,"pollInterval":5000}}`
	task25Get    = `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttl":60000,"pollInterval":5000}`
	task25Cancel = `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"cancelled","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:51:00Z","ttl":60000}`
	task25Result = `{"content":[{"type":"text","text":"done"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840"}}}`
	task25Note   = `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:52:00Z","ttl":60000}`

	// Tasks, the 2026 extension (§4b).
	task26Create   = `{"resultType":"task","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"working","statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}`
	task26GetInput = `{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"input_required","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:45:00Z","ttlMs":60000,"inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Proceed?"}}}}`
	task26GetDone  = `{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"result":{"content":[{"type":"text","text":"done"}],"isError":false}}`
	task26GetFail  = `{"resultType":"complete","taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"failed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"error":{"code":-32603,"message":"boom"}}`
	task26Ack      = `{"resultType":"complete"}`
	task26Get      = `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"_meta":` + meta + `,"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840"}}`
	task26Update   = `{"jsonrpc":"2.0","id":5,"method":"tasks/update","params":{"_meta":` + meta + `,"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","inputResponses":{"confirm":{"action":"accept"}}}}`
	task26Note     = `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"completed","result":{"content":[]}}}`
)
