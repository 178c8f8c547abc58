package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// These tests hold the package's header rules against a real 2026
// server: go-sdk v1.8.0's stateless Streamable HTTP handler, called in
// process (no listener).

const deploySchema = `{"type":"object","properties":{
	"target":{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"zone":{"type":"object","properties":{"id":{"type":"integer","x-mcp-header":"Zone-Id"}}}}},
	"dryRun":{"type":"boolean","x-mcp-header":"Dry-Run"},
	"note":{"type":"string"}}}`

func sdkHandler(t *testing.T) http.Handler {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "mcp-test", Version: "1"}, nil)
	ok := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	}
	server.AddTool(&sdk.Tool{Name: "deploy", InputSchema: json.RawMessage(deploySchema)}, ok)
	server.AddTool(&sdk.Tool{Name: "Zürich", InputSchema: json.RawMessage(`{"type":"object"}`)}, ok)
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// post sends one message with the given extra headers and returns the
// HTTP status and the JSON-RPC message answered.
func post(t *testing.T, h http.Handler, body string, extra http.Header) (int, jsonrpc.Message) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range extra {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	m, err := jsonrpc.ParseStrict(bytes.TrimSpace(rec.Body.Bytes()))
	if err != nil {
		t.Fatalf("answer %d %q: %v", rec.Code, rec.Body.String(), err)
	}
	return rec.Code, m
}

const sdkMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// sendAsClient sends m the way replayctl's transport does: the version
// header from _meta, then StandardHeaders.
func sendAsClient(t *testing.T, h http.Handler, body string, tools *mcp.ToolHeaders, edit func(http.Header)) (int, jsonrpc.Message) {
	t.Helper()
	m, err := jsonrpc.ParseStrict([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	hdr := mcp.StandardHeaders("", m, tools)
	if hdr == nil {
		hdr = http.Header{}
	}
	hdr.Set(mcp.HeaderProtocolVersion, mcp.MetaVersion(m.Params()))
	if edit != nil {
		edit(hdr)
	}
	status, answer := post(t, h, body, hdr)
	// The package's own check must agree with the server's.
	checkErr := mcp.CheckStandardHeaders(hdr, m, tools)
	code, _ := mcp.ErrorCode(answer.Error())
	if rejected := code == mcp.CodeHeaderMismatch; rejected != (checkErr != nil) {
		t.Errorf("server: %d %s; CheckStandardHeaders: %v — they disagree", status, answer.Raw, checkErr)
	}
	return status, answer
}

func TestGoSDKAcceptsStandardHeaders(t *testing.T) {
	h := sdkHandler(t)
	var tools mcp.ToolHeaders
	status, list := sendAsClient(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":`+sdkMeta+`}}`, nil, nil)
	if status != http.StatusOK || list.Kind != jsonrpc.KindResponse {
		t.Fatalf("tools/list: %d %s", status, list.Raw)
	}
	if err := tools.Learn(list.Result()); err != nil {
		t.Fatalf("Learn: %v", err)
	}
	if p, ok := tools.Params("deploy"); !ok || len(p) != 3 {
		t.Fatalf("deploy learned %v, %v from %s", p, ok, list.Result())
	}

	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":` + sdkMeta + `,"name":"deploy","arguments":` + args + `}}`
	}
	full := call(`{"target":{"region":"Zürich","zone":{"id":7}},"dryRun":false,"note":"n"}`)
	tests := []struct {
		name   string
		body   string
		edit   func(http.Header)
		status int
		code   int // JSON-RPC error code; 0: a result
	}{
		{"as derived", full, nil, 200, 0},
		{"only some arguments", call(`{"dryRun":true}`), nil, 200, 0},
		{"null argument, no header", call(`{"target":{"region":null}}`), nil, 200, 0},
		{"integer sent as 7.0", full, func(h http.Header) { h.Set("Mcp-Param-Zone-Id", "7.0") }, 200, 0},
		{"param header missing", full, func(h http.Header) { h.Del("Mcp-Param-Region") }, 400, mcp.CodeHeaderMismatch},
		{"param header differs", full, func(h http.Header) { h.Set("Mcp-Param-Dry-Run", "true") }, 400, mcp.CodeHeaderMismatch},
		{"param header for a null argument", call(`{"target":{"region":null}}`), func(h http.Header) { h.Set("Mcp-Param-Region", "x") }, 400, mcp.CodeHeaderMismatch},
		{"Mcp-Method missing", full, func(h http.Header) { h.Del(mcp.HeaderMethod) }, 400, mcp.CodeHeaderMismatch},
		{"Mcp-Name missing", full, func(h http.Header) { h.Del(mcp.HeaderName) }, 400, mcp.CodeHeaderMismatch},
		{"Mcp-Name differs", full, func(h http.Header) { h.Set(mcp.HeaderName, "other") }, 400, mcp.CodeHeaderMismatch},
		{"version header missing", full, func(h http.Header) { h.Del(mcp.HeaderProtocolVersion) }, 400, mcp.CodeHeaderMismatch},
		{"version header 2025", full, func(h http.Header) { h.Set(mcp.HeaderProtocolVersion, mcp.V20251125) }, 400, mcp.CodeHeaderMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, answer := sendAsClient(t, h, tt.body, &tools, tt.edit)
			code, _ := mcp.ErrorCode(answer.Error())
			if status != tt.status || code != tt.code {
				t.Errorf("got %d %s, want %d with code %d", status, answer.Raw, tt.status, tt.code)
			}
		})
	}
}

// go-sdk v1.8.0 compares Mcp-Name raw; the specification has clients
// base64-encode names that are not plain ASCII, as StandardHeaders does.
// This test pins the difference, so that a go-sdk that decodes shows up.
func TestGoSDKMcpNameIsRaw(t *testing.T) {
	h := sdkHandler(t)
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":` + sdkMeta + `,"name":"Zürich","arguments":{}}}`
	m, err := jsonrpc.ParseStrict([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	hdr := mcp.StandardHeaders("", m, nil)
	hdr.Set(mcp.HeaderProtocolVersion, mcp.V20260728)
	if got := hdr.Get(mcp.HeaderName); got != "Zürich" {
		t.Fatalf("Mcp-Name = %q, want it raw as go-sdk sends it", got)
	}
	if status, answer := post(t, h, body, hdr); status != 200 {
		t.Errorf("raw name: got %d %s, want 200", status, answer.Raw)
	}
	encoded := hdr.Clone()
	encoded.Set(mcp.HeaderName, mcp.EncodeHeaderValue("Zürich"))
	if status, answer := post(t, h, body, encoded); status != 400 {
		t.Errorf("encoded name: got %d %s; go-sdk v1.8.0 answers 400 (it does not decode Mcp-Name)", status, answer.Raw)
	}
	if err := mcp.CheckStandardHeaders(hdr, m, nil); err != nil {
		t.Errorf("CheckStandardHeaders refuses the raw name go-sdk sends: %v", err)
	}
}

// The error of an unsupported 2026 version is read as the server sends it.
func TestGoSDKUnsupportedVersion(t *testing.T) {
	h := sdkHandler(t)
	body := `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`
	status, answer := sendAsClient(t, h, body, nil, nil)
	requested, supported, ok := mcp.UnsupportedVersion(answer.Error())
	if status != 400 || !ok || requested != "2027-01-01" || len(supported) == 0 || supported[0] != mcp.V20260728 {
		t.Errorf("got %d %s → %q %q %v", status, answer.Raw, requested, supported, ok)
	}
	if name := mcp.ErrorName(mcp.CodeUnsupportedVersion); name != "unsupported protocol version" {
		t.Errorf("ErrorName = %q", name)
	}
}
