package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// ToolHeaders is what a client has learned from tools/list results about
// the Mcp-Param headers of each tool: for every tool, the arguments its
// inputSchema annotates with x-mcp-header. StandardHeaders reads it for
// tools/call. The zero value is empty and ready to use. A ToolHeaders is
// not safe for concurrent use: one session owns it, as a go-sdk client
// session owns its tools cache (headers are sent only for tools listed on
// the same session).
type ToolHeaders struct {
	tools map[string]*toolEntry
}

// ParamHeader is one x-mcp-header annotation of a tool.
type ParamHeader struct {
	// Path is the chain of property names from the arguments object down
	// to the annotated property: ["region"], or ["target", "region"] for a
	// property of a nested object.
	Path []string
	// Name is the annotation's value, e.g. "Region".
	Name string
	// Header is the header to send, canonical: "Mcp-Param-Region".
	Header string
}

type toolEntry struct {
	name       string
	nameHeader string // NameHeaderValue(name), computed once
	params     []ParamHeader
}

// lookup returns the entry of the tool whose name is the JSON string v,
// or nil. The common unescaped name is looked up without allocating.
func (t *ToolHeaders) lookup(v []byte) *toolEntry {
	if t == nil || len(t.tools) == 0 || len(v) < 2 || v[0] != '"' {
		return nil
	}
	inner := v[1 : len(v)-1]
	if e := t.tools[string(inner)]; e != nil {
		return e
	}
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return nil // the name as written is the name
	}
	if s, ok := decodeString(v); ok {
		return t.tools[s]
	}
	return nil
}

// Params returns the x-mcp-header annotations of a tool (in the order of
// their paths), and whether the tool has been learned at all.
func (t *ToolHeaders) Params(tool string) ([]ParamHeader, bool) {
	if t == nil {
		return nil, false
	}
	e, ok := t.tools[tool]
	if !ok {
		return nil, false
	}
	return slices.Clone(e.params), true
}

// Len returns how many tools have been learned.
func (t *ToolHeaders) Len() int {
	if t == nil {
		return 0
	}
	return len(t.tools)
}

// InvalidToolError says why Learn dropped a tool.
type InvalidToolError struct {
	Tool     string // the tool's name
	Property string // the annotated property, as a dotted path
	Reason   string
}

func (e *InvalidToolError) Error() string {
	if e.Property == "" {
		return fmt.Sprintf("tool %q: %s", e.Tool, e.Reason)
	}
	return fmt.Sprintf("tool %q: property %q: %s", e.Tool, e.Property, e.Reason)
}

// Learn merges the tools of one tools/list result (the result member: an
// object with "tools") into t, replacing what it knew of tools of the
// same names. A tool whose x-mcp-header annotations are invalid is
// dropped — forgotten if it was known — as a 2026 client must exclude it
// from the listing (go-sdk v1.8.0 does, filterValidTools): its calls then
// carry no Mcp-Param headers. An annotation is invalid when it is not a
// non-empty string of HTTP token characters, when its property's type is
// not "string", "integer" or "boolean", or when it repeats another
// annotation of the tool, ignoring case. Annotations are found, as go-sdk
// finds them, on properties reached from inputSchema through
// "properties" alone; a schema whose properties do not decode has none.
//
// Learn returns nil, or the reasons it dropped tools (joined
// *InvalidToolError values), for the caller to log; the other tools are
// learned either way. A result that is not a tools/list result teaches
// nothing and is not an error.
func (t *ToolHeaders) Learn(result []byte) error {
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(result, &list) != nil {
		return nil
	}
	var errs []error
	for _, raw := range list.Tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &tool) != nil || tool.Name == "" {
			continue // not a tool a client could call
		}
		params, err := paramHeaders(tool.InputSchema)
		if err != nil {
			err.Tool = tool.Name
			errs = append(errs, err)
			delete(t.tools, tool.Name)
			continue
		}
		if t.tools == nil {
			t.tools = make(map[string]*toolEntry)
		}
		t.tools[tool.Name] = &toolEntry{name: tool.Name, nameHeader: NameHeaderValue(tool.Name), params: params}
	}
	return errors.Join(errs...)
}

// schemaNode is the part of a JSON schema x-mcp-header lives in.
type schemaNode struct {
	Type       json.RawMessage       `json:"type"`
	Header     json.RawMessage       `json:"x-mcp-header"`
	Properties map[string]schemaNode `json:"properties"`
}

// paramHeaders returns the annotations of an inputSchema, sorted by path,
// or why they are invalid.
func paramHeaders(schema json.RawMessage) ([]ParamHeader, *InvalidToolError) {
	var root schemaNode
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return nil, nil
	}
	var out []ParamHeader
	seen := make(map[string]string) // lower-case name → dotted path
	if err := collect(root.Properties, nil, seen, &out); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b ParamHeader) int { return slices.Compare(a.Path, b.Path) })
	return out, nil
}

func collect(props map[string]schemaNode, prefix []string, seen map[string]string, out *[]ParamHeader) *InvalidToolError {
	// Visit in name order, so that the error for a tool is always the same.
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		node := props[name]
		p := append(slices.Clip(prefix), name)
		if node.Header != nil {
			dotted := strings.Join(p, ".")
			var h string
			if json.Unmarshal(node.Header, &h) != nil || h == "" {
				return &InvalidToolError{Property: dotted, Reason: "x-mcp-header must be a non-empty string"}
			}
			if i := strings.IndexFunc(h, func(r rune) bool { return !isTokenChar(r) }); i >= 0 {
				return &InvalidToolError{Property: dotted, Reason: fmt.Sprintf("x-mcp-header %q has %q, which is not an HTTP token character", h, h[i:i+1])}
			}
			if !isString(node.Type, "string") && !isString(node.Type, "integer") && !isString(node.Type, "boolean") {
				return &InvalidToolError{Property: dotted, Reason: fmt.Sprintf("x-mcp-header %q is on a property of type %s; only string, integer and boolean may carry one", h, typeText(node.Type))}
			}
			if other, dup := seen[strings.ToLower(h)]; dup {
				return &InvalidToolError{Property: dotted, Reason: fmt.Sprintf("x-mcp-header %q repeats the one of %q (names ignore case)", h, other)}
			}
			seen[strings.ToLower(h)] = dotted
			*out = append(*out, ParamHeader{Path: p, Name: h, Header: http.CanonicalHeaderKey(HeaderParamPrefix + h)})
		}
		if err := collect(node.Properties, p, seen, out); err != nil {
			return err
		}
	}
	return nil
}

func typeText(t json.RawMessage) string {
	if t == nil {
		return "(none)"
	}
	return string(t)
}

// isTokenChar reports whether r may be in an HTTP field name (RFC 9110 tchar).
func isTokenChar(r rune) bool {
	switch {
	case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
