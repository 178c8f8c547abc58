package mcp

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestLearn(t *testing.T) {
	tool := func(name, props string) string {
		return `{"name":"` + name + `","inputSchema":{"type":"object","properties":` + props + `}}`
	}
	list := func(tools ...string) string { return `{"tools":[` + strings.Join(tools, ",") + `]}` }
	type param struct{ path, header string }
	tests := []struct {
		name    string
		result  string
		want    map[string][]param // learned tools and their annotations
		dropped []string           // "tool: part of the reason"
	}{
		{"E2 captured", capToolsListRes, map[string][]param{
			"test_simple_text":  nil,
			"test_x_mcp_header": {{"region", "Mcp-Param-Region"}},
		}, nil},
		{"nested", nestedTools, map[string][]param{
			"deploy": {
				{"count", "Mcp-Param-Count"},
				{"dryRun", "Mcp-Param-Dry-Run"},
				{"target.region", "Mcp-Param-Region"},
				{"target.zone.id", "Mcp-Param-Zone-Id"},
				{"tenant", "Mcp-Param-X_tenant"},
			},
			"Zürich-tool": nil,
		}, nil},
		{"no inputSchema", list(`{"name":"bare"}`), map[string][]param{"bare": nil}, nil},
		{"number type", list(tool("n", `{"x":{"type":"number","x-mcp-header":"X"}}`), tool("ok", `{}`)),
			map[string][]param{"ok": nil}, []string{`n: property "x": x-mcp-header "X" is on a property of type "number"`}},
		{"object type", list(tool("o", `{"x":{"type":"object","x-mcp-header":"X"}}`)), nil, []string{`o: property "x"`}},
		{"no type", list(tool("t", `{"x":{"x-mcp-header":"X"}}`)), nil, []string{`t: property "x": x-mcp-header "X" is on a property of type (none)`}},
		{"type list", list(tool("t", `{"x":{"type":["string","null"],"x-mcp-header":"X"}}`)), nil, []string{`t: property "x"`}},
		{"empty name", list(tool("e", `{"x":{"type":"string","x-mcp-header":""}}`)), nil, []string{`e: property "x": x-mcp-header must be a non-empty string`}},
		{"null name", list(tool("e", `{"x":{"type":"string","x-mcp-header":null}}`)), nil, []string{`e: property "x": x-mcp-header must be a non-empty string`}},
		{"number name", list(tool("e", `{"x":{"type":"string","x-mcp-header":7}}`)), nil, []string{`e: property "x": x-mcp-header must be a non-empty string`}},
		{"space in name", list(tool("s", `{"x":{"type":"string","x-mcp-header":"My Region"}}`)), nil, []string{`s: property "x": x-mcp-header "My Region" has " "`}},
		{"colon in name", list(tool("c", `{"x":{"type":"string","x-mcp-header":"a:b"}}`)), nil, []string{`c: property "x"`}},
		{"newline in name", list(tool("c", `{"x":{"type":"string","x-mcp-header":"a\nb"}}`)), nil, []string{`c: property "x"`}},
		{"non-ASCII name", list(tool("c", `{"x":{"type":"string","x-mcp-header":"Région"}}`)), nil, []string{`c: property "x"`}},
		{"duplicate ignoring case", list(tool("d", `{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"object","properties":{"c":{"type":"string","x-mcp-header":"REGION"}}}}`)),
			nil, []string{`d: property "b.c": x-mcp-header "REGION" repeats the one of "a"`}},
		{"invalid nested", list(tool("v", `{"a":{"type":"object","properties":{"b":{"type":"array","x-mcp-header":"B"}}}}`)), nil, []string{`v: property "a.b"`}},
		{"annotation outside properties is not looked at", list(tool("i", `{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}`)),
			map[string][]param{"i": nil}, nil},
		{"properties not an object", list(`{"name":"p","inputSchema":{"type":"object","properties":[1]}}`), map[string][]param{"p": nil}, nil},
		{"null tool and nameless tool skipped", list(`null`, `{"inputSchema":{}}`, `7`, tool("k", `{}`)), map[string][]param{"k": nil}, nil},
		{"not a tools/list result", `{"content":[]}`, nil, nil},
		{"not JSON", `{"tools":`, nil, nil},
		{"tools not an array", `{"tools":{}}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var th ToolHeaders
			err := th.Learn([]byte(tt.result))
			if th.Len() != len(tt.want) {
				t.Errorf("learned %d tools, want %d", th.Len(), len(tt.want))
			}
			for name, want := range tt.want {
				got, ok := th.Params(name)
				if !ok {
					t.Errorf("tool %q not learned", name)
					continue
				}
				var gotp []param
				for _, p := range got {
					gotp = append(gotp, param{strings.Join(p.Path, "."), p.Header})
					if !strings.EqualFold(p.Header, HeaderParamPrefix+p.Name) {
						t.Errorf("tool %q: header %q for name %q", name, p.Header, p.Name)
					}
				}
				if !slices.Equal(gotp, want) {
					t.Errorf("tool %q: got %v, want %v", name, gotp, want)
				}
			}
			if len(tt.dropped) == 0 {
				if err != nil {
					t.Errorf("got error %v, want nil", err)
				}
				return
			}
			for _, d := range tt.dropped {
				tool, reason, _ := strings.Cut(d, ": ")
				var ie *InvalidToolError
				if !errors.As(err, &ie) || ie.Tool != tool || !strings.Contains(err.Error(), reason) {
					t.Errorf("got error %v, want one for tool %q containing %q", err, tool, reason)
				}
				if _, ok := th.Params(tool); ok {
					t.Errorf("dropped tool %q is known", tool)
				}
			}
		})
	}
}

func TestLearnMerges(t *testing.T) {
	var th ToolHeaders
	if err := th.Learn([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}},{"name":"b"}]}`)); err != nil {
		t.Fatal(err)
	}
	// A later page adds a tool; a later listing replaces one.
	if err := th.Learn([]byte(`{"tools":[{"name":"c"},{"name":"b","inputSchema":{"type":"object","properties":{"s":{"type":"integer","x-mcp-header":"S"}}}}]}`)); err != nil {
		t.Fatal(err)
	}
	if p, _ := th.Params("b"); len(p) != 1 || p[0].Name != "S" {
		t.Errorf("b: got %v, want the new annotation S", p)
	}
	if _, ok := th.Params("a"); !ok || th.Len() != 3 {
		t.Errorf("a known %v, %d tools; want true, 3", ok, th.Len())
	}
	// A tool that turns invalid is forgotten.
	if err := th.Learn([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"R"}}}}]}`)); err == nil {
		t.Error("got nil error for an invalid tool")
	}
	if _, ok := th.Params("a"); ok {
		t.Error("invalid tool a still known")
	}
	// Params returns a copy.
	p, _ := th.Params("b")
	p[0].Name = "changed"
	if q, _ := th.Params("b"); q[0].Name != "S" {
		t.Error("Params shares its slice")
	}
	// A nil ToolHeaders knows nothing.
	var none *ToolHeaders
	if _, ok := none.Params("a"); ok || none.Len() != 0 {
		t.Error("nil ToolHeaders knows a tool")
	}
}
