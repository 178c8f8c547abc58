package mcp

import "encoding/json"

// JSON-RPC error codes MCP uses.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601 // over 2026 HTTP: status 404
	CodeInvalidParams  = -32602 // over 2026 HTTP: status 400
	CodeInternal       = -32603

	// CodeResourceNotFound is resources/read's error up to 2025-11-25;
	// 2026-07-28 answers -32602 instead and reserves the code.
	CodeResourceNotFound = -32002

	// CodeHeaderMismatch (2026): HTTP headers missing, malformed or not
	// matching the body; status 400.
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapabilities (2026): the request's clientCapabilities
	// lack one the server needs; data.requiredCapabilities says which;
	// status 400.
	CodeMissingClientCapabilities = -32021
	// CodeUnsupportedVersion (2026): the server does not serve the
	// request's version; data {"supported":[…],"requested":"…"}; status 400.
	CodeUnsupportedVersion = -32022
	// CodeURLElicitationRequired is 2025-11-25 only (reserved in 2026).
	CodeURLElicitationRequired = -32042
)

// ErrorName returns the name of an error code in lower case ("method not
// found", "header mismatch"), or "" for a code MCP does not define.
func ErrorName(code int) string {
	switch code {
	case CodeParseError:
		return "parse error"
	case CodeInvalidRequest:
		return "invalid request"
	case CodeMethodNotFound:
		return "method not found"
	case CodeInvalidParams:
		return "invalid params"
	case CodeInternal:
		return "internal error"
	case CodeResourceNotFound:
		return "resource not found"
	case CodeHeaderMismatch:
		return "header mismatch"
	case CodeMissingClientCapabilities:
		return "missing required client capability"
	case CodeUnsupportedVersion:
		return "unsupported protocol version"
	case CodeURLElicitationRequired:
		return "URL elicitation required"
	}
	return ""
}

// ErrorCode returns the code of a JSON-RPC error object (the error
// member), and false when it has no integer code.
func ErrorCode(errObj []byte) (int, bool) {
	v := member(errObj, "code")
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	var code int
	if json.Unmarshal(v, &code) != nil {
		return 0, false
	}
	return code, true
}

// UnsupportedVersion reads an unsupported-protocol-version error (the
// error member, code -32022): the version the request asked for and the
// versions the server serves, in its order. ok is false for any other
// error; data that is missing or malformed leaves requested and supported
// empty.
func UnsupportedVersion(errObj []byte) (requested string, supported []string, ok bool) {
	if code, isCode := ErrorCode(errObj); !isCode || code != CodeUnsupportedVersion {
		return "", nil, false
	}
	var data struct {
		Requested any   `json:"requested"`
		Supported []any `json:"supported"`
	}
	_ = json.Unmarshal(member(errObj, "data"), &data)
	requested, _ = data.Requested.(string)
	for _, v := range data.Supported {
		if s, isString := v.(string); isString {
			supported = append(supported, s)
		}
	}
	return requested, supported, true
}
