package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// requestNames are RequestName's cases: a method, its params, the name.
var requestNames = []struct {
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
	{MethodToolsCall, "{\"name\":\"bad \xff utf-8\"}", "bad \ufffd utf-8"},
}

func TestRequestName(t *testing.T) {
	for _, tt := range requestNames {
		if got := RequestName(tt.method, []byte(tt.params)); got != tt.want {
			t.Errorf("RequestName(%s, %s) = %q, want %q", tt.method, tt.params, got, tt.want)
		}
	}
}

// TestNamesAsRequestName: a Names answers as RequestName does, the first
// time and again, past its bounds too, and makes no string for a name it
// has seen.
func TestNamesAsRequestName(t *testing.T) {
	var n Names
	for round := range 2 {
		for _, tt := range requestNames {
			if got := n.RequestName(tt.method, []byte(tt.params)); got != tt.want {
				t.Errorf("round %d: Names.RequestName(%s, %s) = %q, want %q", round, tt.method, tt.params, got, tt.want)
			}
		}
	}
	long := strings.Repeat("x", MaxNameLen+1)
	for i := range MaxNames + 10 {
		params := fmt.Appendf(nil, `{"name":"tool %d"}`, i)
		if got, want := n.RequestName(MethodToolsCall, params), fmt.Sprintf("tool %d", i); got != want {
			t.Fatalf("Names.RequestName(%s) = %q, want %q", params, got, want)
		}
	}
	if len(n.seen) != MaxNames {
		t.Errorf("Names keeps %d names, want at most %d", len(n.seen), MaxNames)
	}
	params := []byte(`{"name":"` + long + `"}`)
	if got := n.RequestName(MethodToolsCall, params); got != long {
		t.Errorf("a name of %d bytes = %q", len(long), got)
	}
	var fresh Names
	seen := []byte(`{"name":"echo","arguments":{"message":"hello"}}`)
	fresh.RequestName(MethodToolsCall, seen)
	if a := testing.AllocsPerRun(100, func() { fresh.RequestName(MethodToolsCall, seen) }); a != 0 {
		t.Errorf("a name seen before: %.1f allocations, want 0", a)
	}
}

func FuzzNames(f *testing.F) {
	for _, tt := range requestNames {
		f.Add(tt.method, []byte(tt.params))
	}
	var n Names
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		want := RequestName(method, params)
		for range 2 {
			if got := n.RequestName(method, params); got != want {
				t.Fatalf("Names.RequestName(%q, %q) = %q, want %q", method, params, got, want)
			}
		}
	})
}
