package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/replayctl/replayctl/jsonrpc"
)

// EncodeOpenAPI writes an OpenAPI 3.1 description of the Streamable HTTP
// endpoint the tape r was recorded from (or the export's URL, ExportURL):
// one POST operation whose request body is a JSON-RPC message (a request
// with one of the methods the tape's clients sent, a notification, or a
// response) and whose answers are an application/json JSON-RPC response
// or a text/event-stream, 202 for a message that needs no answer, 400
// and 404 (an unknown session); the Mcp-Session-Id and
// MCP-Protocol-Version headers (with the versions the tape used). The
// tools of the tape's tools/list answers become components: per tool its
// inputSchema (Tool_NAME_input), its outputSchema when it has one
// (Tool_NAME_output), and the tools/call request that calls it
// (ToolsCall_NAME), which the request body lists first. A tool listed
// again with another schema is described as last listed. The "$ref"s
// inside a tool's schema that point into it ("#/...") are rewritten to
// point into its component.
//
// It reads r once from its start, keeping only the tools and the names
// it saw (see walkCalls). r is left at its end. Errors are r's (*Error)
// or w's.
func EncodeOpenAPI(w io.Writer, r *Reader, opts ...ExportOption) error {
	h := r.Header()
	cfg := newExportConfig(h, opts)
	c := openAPICollector{methods: map[string]bool{}, versions: map[string]bool{}, tools: map[string]openAPITool{}}
	if h.ProtocolVersion != "" {
		c.versions[h.ProtocolVersion] = true
	}
	err := walkCalls(r, func([]exportSession) error { return nil }, func(_ exportSession, call exportCall) error {
		c.add(call)
		return nil
	})
	if err != nil {
		return err
	}
	doc, err := c.document(h, cfg, r.Path())
	if err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write OpenAPI: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write OpenAPI: %w", err)
	}
	return nil
}

// openAPITool is a tool as tools/list described it.
type openAPITool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// openAPICollector keeps what the description needs from the calls.
type openAPICollector struct {
	methods  map[string]bool
	versions map[string]bool
	tools    map[string]openAPITool
	order    []string // tool names in the order first listed
}

func (c *openAPICollector) add(call exportCall) {
	if call.Method != "" && call.ID != "" {
		c.methods[call.Method] = true
	}
	if call.Req.HTTP != nil {
		for k, vs := range call.Req.HTTP.Headers {
			if equalFold(k, "MCP-Protocol-Version") {
				for _, v := range vs {
					c.versions[v] = true
				}
			}
		}
	}
	if call.Want != "result" {
		return
	}
	m, err := jsonrpc.Parse(call.Answer.Msg)
	if err != nil {
		return
	}
	switch call.Method {
	case "initialize":
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(m.Result(), &res) == nil && res.ProtocolVersion != "" {
			c.versions[res.ProtocolVersion] = true
		}
	case "tools/list":
		var res struct {
			Tools []openAPITool `json:"tools"`
		}
		if json.Unmarshal(m.Result(), &res) != nil {
			return
		}
		for _, t := range res.Tools {
			if t.Name == "" {
				continue
			}
			if _, ok := c.tools[t.Name]; !ok {
				c.order = append(c.order, t.Name)
			}
			c.tools[t.Name] = t
		}
	}
}

// componentName is what components' names may hold (OpenAPI 3.1 §4.8.7.1).
var componentName = regexp.MustCompile(`[^a-zA-Z0-9._-]`)

func (c *openAPICollector) document(h Header, cfg exportConfig, tapePath string) (map[string]any, error) {
	u, err := url.Parse(cfg.url)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("export: %q is not an http(s) URL to describe: give one with --url", cfg.url)
	}
	path := u.Path
	if path == "" {
		path = "/"
	}
	server := (&url.URL{Scheme: u.Scheme, Host: u.Host, User: u.User}).String()

	schemas := map[string]any{}
	for k, v := range openAPIBaseSchemas() {
		schemas[k] = v
	}
	methods := sortedKeys(c.methods)
	if len(methods) > 0 {
		schemas["JSONRPCRequest"].(map[string]any)["properties"].(map[string]any)["method"] = map[string]any{"type": "string",
			"description": "Any method; those the recording's clients sent are listed in examples.", "examples": methods}
	}
	var body []any
	used := map[string]bool{}
	for _, name := range c.order {
		t := c.tools[name]
		key := componentName.ReplaceAllString(name, "_")
		for base, n := key, 2; used[key]; n++ {
			key = fmt.Sprintf("%s_%d", base, n)
		}
		used[key] = true
		in := "Tool_" + key + "_input"
		schema, err := toolSchema(t.InputSchema, in)
		if err != nil {
			return nil, fmt.Errorf("export: tool %q: inputSchema: %w", name, err)
		}
		schemas[in] = schema
		if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
			out := "Tool_" + key + "_output"
			if schemas[out], err = toolSchema(t.OutputSchema, out); err != nil {
				return nil, fmt.Errorf("export: tool %q: outputSchema: %w", name, err)
			}
		}
		call := "ToolsCall_" + key
		desc := t.Description
		if t.Title != "" {
			desc = t.Title + ": " + desc
		}
		schemas[call] = map[string]any{
			"type": "object", "title": "tools/call " + name, "description": strings.TrimSpace(desc),
			"required": []string{"jsonrpc", "id", "method", "params"},
			"properties": map[string]any{
				"jsonrpc": map[string]any{"const": "2.0"},
				"id":      ref("RequestId"),
				"method":  map[string]any{"const": "tools/call"},
				"params": map[string]any{"type": "object", "required": []string{"name"}, "properties": map[string]any{
					"name":      map[string]any{"const": name},
					"arguments": ref(in),
					"_meta":     map[string]any{"type": "object"},
				}},
			},
		}
		body = append(body, ref(call))
	}
	body = append(body, ref("JSONRPCRequest"), ref("JSONRPCNotification"), ref("JSONRPCResponse"))

	title := "MCP server"
	version := h.ProtocolVersion
	if h.Server != nil && h.Server.Name != "" {
		title = h.Server.Name
		if h.Server.Version != "" {
			version = h.Server.Version
		}
	}
	if version == "" {
		version = "unknown"
	}
	versionSchema := map[string]any{"type": "string"}
	if vs := sortedKeys(c.versions); len(vs) > 0 {
		versionSchema["examples"] = vs
	}
	sessionHeader := map[string]any{"description": "The session the server gave on initialize; sent with every later request of the session.", "schema": map[string]any{"type": "string"}}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": title + " (Streamable HTTP, as recorded)", "version": version,
			"description": fmt.Sprintf("The MCP Streamable HTTP endpoint as the tape %s recorded it, written by %s: JSON-RPC 2.0 messages POSTed to one path; the tools it listed are components.", tapePath, cfg.creator)},
		"servers": []any{map[string]any{"url": server}},
		"paths": map[string]any{path: map[string]any{"post": map[string]any{
			"operationId": "mcpMessage",
			"summary":     "Send a JSON-RPC message (MCP Streamable HTTP)",
			"parameters": []any{
				map[string]any{"name": "Mcp-Session-Id", "in": "header", "required": false, "description": sessionHeader["description"], "schema": sessionHeader["schema"]},
				map[string]any{"name": "MCP-Protocol-Version", "in": "header", "required": false, "description": "The protocol version initialize agreed on.", "schema": versionSchema},
			},
			"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"anyOf": body}}}},
			"responses": map[string]any{
				"200": map[string]any{"description": "The answer to a request: one JSON-RPC response, or an event stream carrying it (and the server's notifications and requests before it).",
					"headers": map[string]any{"Mcp-Session-Id": sessionHeader},
					"content": map[string]any{
						"application/json":  map[string]any{"schema": ref("JSONRPCResponse")},
						"text/event-stream": map[string]any{"schema": map[string]any{"type": "string", "description": "Server-Sent Events, each data a JSON-RPC message."}},
					}},
				"202": map[string]any{"description": "Accepted: a notification or a response, which get no answer."},
				"400": map[string]any{"description": "Not a JSON-RPC message the server takes, or a missing session id.", "content": map[string]any{"application/json": map[string]any{"schema": ref("JSONRPCResponse")}}},
				"404": map[string]any{"description": "The session is unknown or ended: initialize again."},
			},
		}}},
		"components": map[string]any{"schemas": schemas},
	}
	return doc, nil
}

// toolSchema decodes a tool's JSON Schema for the component name, its
// "$ref"s into itself rewritten to point into the component.
func toolSchema(raw json.RawMessage, name string) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{"type": "object"}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	rebase(v, "#/components/schemas/"+name)
	return v, nil
}

// rebase rewrites the local "$ref"s ("#" or "#/...") in v to start at base.
func rebase(v any, base string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" && (s == "#" || strings.HasPrefix(s, "#/")) {
				x[k] = base + s[1:]
				continue
			}
			rebase(e, base)
		}
	case []any:
		for _, e := range x {
			rebase(e, base)
		}
	}
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// openAPIBaseSchemas are the JSON-RPC 2.0 envelope's schemas.
func openAPIBaseSchemas() map[string]any {
	obj := func(required []string, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "required": required, "properties": props}
	}
	version := map[string]any{"const": "2.0"}
	return map[string]any{
		"RequestId": map[string]any{"description": "A request's id: a string or an integer.", "type": []string{"string", "integer"}},
		"JSONRPCRequest": obj([]string{"jsonrpc", "id", "method"}, map[string]any{
			"jsonrpc": version, "id": ref("RequestId"), "method": map[string]any{"type": "string"}, "params": map[string]any{"type": "object"}}),
		"JSONRPCNotification": map[string]any{"type": "object", "required": []string{"jsonrpc", "method"}, "not": map[string]any{"required": []string{"id"}},
			"properties": map[string]any{"jsonrpc": version, "method": map[string]any{"type": "string"}, "params": map[string]any{"type": "object"}}},
		"JSONRPCResultResponse": obj([]string{"jsonrpc", "id", "result"}, map[string]any{
			"jsonrpc": version, "id": ref("RequestId"), "result": map[string]any{"type": "object"}}),
		"JSONRPCErrorResponse": obj([]string{"jsonrpc", "error"}, map[string]any{
			"jsonrpc": version, "id": map[string]any{"anyOf": []any{ref("RequestId"), map[string]any{"type": "null"}}},
			"error": obj([]string{"code", "message"}, map[string]any{"code": map[string]any{"type": "integer"}, "message": map[string]any{"type": "string"}, "data": map[string]any{}})}),
		"JSONRPCResponse": map[string]any{"oneOf": []any{ref("JSONRPCResultResponse"), ref("JSONRPCErrorResponse")}},
	}
}
