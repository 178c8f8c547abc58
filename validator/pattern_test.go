package validator

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParsePattern(t *testing.T) {
	tests := []struct {
		src, canon string
	}{
		{"result", "result"},
		{"$.result.serverInfo.version", "result.serverInfo.version"},
		{"$", "$"},
		{"$[0]", "[0]"},
		{"result.content[*].annotations", "result.content[*].annotations"},
		{"**.timestamp", "**.timestamp"},
		{"**.**.timestamp", "**.timestamp"},
		{"a.**", "a.**"},
		{"a.*.b", "a.*.b"},
		{`result["a.b"]`, `result["a.b"]`},
		{`result["plain"]`, `result.plain`},
		{`["*"]`, `["*"]`},
		{`a[12][*]`, `a[12][*]`},
		{`a.é`, `a["é"]`},
		{`["x\"]y"].z`, `["x\"]y"].z`},
		{`["\u0041"]`, `A`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			p, err := parsePattern(tt.src)
			if err != nil {
				t.Fatalf("parsePattern: %v", err)
			}
			if got := p.String(); got != tt.canon {
				t.Errorf("got %q, want %q", got, tt.canon)
			}
		})
	}
}

func TestParsePatternErrors(t *testing.T) {
	tests := []struct {
		src, why string
	}{
		{"", "empty pattern"},
		{"$.", "empty pattern"},
		{"a..b", "empty name"},
		{"a.", "empty name"},
		{".a", "empty name"},
		{"a.[0]", "empty name"},
		{"a[", "unclosed '['"},
		{"a[x]", "bad index"},
		{"a[-1]", "bad index"},
		{"a[]", "bad index"},
		{"a[99999999999999999999]", "out of range"},
		{`a["x`, "unclosed quoted name"},
		{`a["x"`, "expected ']'"},
		{`a["\q"]`, "bad quoted name"},
		{"a[0]b", "expected '.' or '['"},
		{"a b", "in a bare name"},
		{"a]", "in a bare name"},
		{"***", "wildcard inside"},
		{"a*", "wildcard inside"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := parsePattern(tt.src)
			if !errors.Is(err, ErrPattern) || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.src)) {
				t.Errorf("got %v, want ErrPattern naming %q and saying %q", err, tt.src, tt.why)
			}
		})
	}
}
