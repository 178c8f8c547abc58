package mcp

import (
	"slices"
	"testing"
)

func TestErrorName(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{CodeParseError, "parse error"},
		{CodeInvalidRequest, "invalid request"},
		{CodeMethodNotFound, "method not found"},
		{CodeInvalidParams, "invalid params"},
		{CodeInternal, "internal error"},
		{CodeResourceNotFound, "resource not found"},
		{CodeHeaderMismatch, "header mismatch"},
		{CodeMissingClientCapabilities, "missing required client capability"},
		{CodeUnsupportedVersion, "unsupported protocol version"},
		{CodeURLElicitationRequired, "URL elicitation required"},
		{-32000, ""},
		{0, ""},
	}
	for _, tt := range tests {
		if got := ErrorName(tt.code); got != tt.want {
			t.Errorf("ErrorName(%d) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestErrorCode(t *testing.T) {
	tests := []struct {
		errObj string
		want   int
		ok     bool
	}{
		{capUnsupported, -32022, true},
		{capNoMethodHdr, -32020, true},
		{`{"message":"x","code":0}`, 0, true},
		{`{"code":"-32020"}`, 0, false},
		{`{"code":1.5}`, 0, false},
		{`{"message":"no code"}`, 0, false},
		{``, 0, false},
	}
	for _, tt := range tests {
		code, ok := ErrorCode([]byte(tt.errObj))
		if code != tt.want || ok != tt.ok {
			t.Errorf("ErrorCode(%s) = %d, %v; want %d, %v", tt.errObj, code, ok, tt.want, tt.ok)
		}
	}
}

func TestUnsupportedVersion(t *testing.T) {
	tests := []struct {
		name, errObj string
		requested    string
		supported    []string
		ok           bool
	}{
		{"captured", capUnsupported, "2027-01-01", []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, true},
		{"spec example", `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}`,
			"1900-01-01", []string{"2026-07-28", "2025-11-25"}, true},
		{"stateful server", `{"code":-32022,"message":"x","data":{"supported":["2025-11-25","2025-06-18"],"requested":"2026-07-28"}}`,
			"2026-07-28", []string{"2025-11-25", "2025-06-18"}, true},
		{"no data", `{"code":-32022,"message":"unsupported"}`, "", nil, true},
		{"odd data", `{"code":-32022,"data":{"supported":["a",1,null,"b"],"requested":5}}`, "", []string{"a", "b"}, true},
		{"other code", capNoMethodHdr, "", nil, false},
		{"not an error", `{"content":[]}`, "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, sup, ok := UnsupportedVersion([]byte(tt.errObj))
			if req != tt.requested || !slices.Equal(sup, tt.supported) || ok != tt.ok {
				t.Errorf("got %q, %q, %v; want %q, %q, %v", req, sup, ok, tt.requested, tt.supported, tt.ok)
			}
		})
	}
}
