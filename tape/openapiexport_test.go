package tape

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

func exportOpenAPI(t *testing.T, path string, opts ...ExportOption) string {
	t.Helper()
	return exportFile(t, path, "openapi.json", EncodeOpenAPI, opts...)
}

// validateOpenAPI validates documents with swagger-parser
// (testdata/export/openapi-check.js) and returns what it read of each, or
// its error.
func validateOpenAPI(t *testing.T, files ...string) ([]struct {
	OpenAPI string   `json:"openapi"`
	Paths   []string `json:"paths"`
	Schemas []string `json:"schemas"`
}, error) {
	t.Helper()
	nodeTool(t, "@apidevtools/swagger-parser")
	script := filepath.Join(testserver.Root(t), "testdata", "export", "openapi-check.js")
	var stderr bytes.Buffer
	cmd := exec.Command("node", append([]string{script}, files...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &exec.ExitError{ProcessState: cmd.ProcessState, Stderr: stderr.Bytes()}
	}
	var got []struct {
		OpenAPI string   `json:"openapi"`
		Paths   []string `json:"paths"`
		Schemas []string `json:"schemas"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("openapi-check.js: %v\n%s", err, out)
	}
	return got, nil
}

// recordedTools returns the tools of the tape's tools/list answers, by name.
func recordedTools(t *testing.T, path string) map[string]openAPITool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]openAPITool{}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var l struct {
			Msg struct {
				Result struct{ Tools []openAPITool }
			}
		}
		if json.Unmarshal(line, &l) == nil {
			for _, tool := range l.Msg.Result.Tools {
				tools[tool.Name] = tool
			}
		}
	}
	return tools
}

func TestOpenAPIExportValidates(t *testing.T) {
	for _, path := range exportTapes {
		t.Run(filepath.Base(path), func(t *testing.T) {
			file := exportOpenAPI(t, path)
			got, err := validateOpenAPI(t, file)
			if err != nil {
				t.Fatalf("swagger-parser rejects the export: %v\n%s", err, err.(*exec.ExitError).Stderr)
			}
			if got[0].OpenAPI != "3.1.0" || !reflect.DeepEqual(got[0].Paths, []string{"/mcp"}) {
				t.Errorf("openapi %s paths %v", got[0].OpenAPI, got[0].Paths)
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Components struct{ Schemas map[string]json.RawMessage }
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			tools := recordedTools(t, path)
			if len(tools) == 0 {
				t.Fatalf("the tape lists no tools")
			}
			for name, tool := range tools {
				key := componentName.ReplaceAllString(name, "_")
				if _, ok := doc.Components.Schemas["ToolsCall_"+key]; !ok {
					t.Errorf("no ToolsCall_%s", key)
				}
				// The tool's own "$ref"s point into its component: back to "#".
				in := bytes.ReplaceAll(doc.Components.Schemas["Tool_"+key+"_input"], []byte(`"#/components/schemas/Tool_`+key+`_input`), []byte(`"#`))
				if !sameJSON(t, in, tool.InputSchema) {
					t.Errorf("Tool_%s_input is %s, want the recorded inputSchema %s", key, doc.Components.Schemas["Tool_"+key+"_input"], tool.InputSchema)
				}
				out := bytes.ReplaceAll(doc.Components.Schemas["Tool_"+key+"_output"], []byte(`"#/components/schemas/Tool_`+key+`_output`), []byte(`"#`))
				if len(tool.OutputSchema) > 0 && !sameJSON(t, out, tool.OutputSchema) {
					t.Errorf("Tool_%s_output is %s, want the recorded outputSchema %s", key, doc.Components.Schemas["Tool_"+key+"_output"], tool.OutputSchema)
				}
			}
		})
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestOpenAPIExportRefsAndValidatorRejects: a tool schema's own "$ref"s
// resolve in the export (swagger-parser resolves every $ref), the URL and
// names are as recorded; and the validator does reject a broken document,
// so that the test above can fail.
func TestOpenAPIExportRefsAndValidatorRejects(t *testing.T) {
	tape := strings.Replace(httpTape, `"result":{"tools":[]}`,
		`"result":{"tools":[{"name":"make item","inputSchema":{"type":"object","$defs":{"Item":{"type":"object","properties":{"n":{"type":"integer"},"next":{"$ref":"#/$defs/Item"}}}},"properties":{"item":{"$ref":"#/$defs/Item"}},"required":["item"]},"outputSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}]}`, 1)
	file := exportOpenAPI(t, writeTemp(t, "tools.jsonl", tape))
	got, err := validateOpenAPI(t, file)
	if err != nil {
		t.Fatalf("swagger-parser rejects the export: %v\n%s", err, err.(*exec.ExitError).Stderr)
	}
	if want := []string{"JSONRPCErrorResponse", "JSONRPCNotification", "JSONRPCRequest", "JSONRPCResponse", "JSONRPCResultResponse", "RequestId",
		"Tool_make_item_input", "Tool_make_item_output", "ToolsCall_make_item"}; !reflect.DeepEqual(got[0].Schemas, want) {
		t.Errorf("schemas %v, want %v", got[0].Schemas, want)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"$ref": "#/components/schemas/Tool_make_item_input/$defs/Item"`, `"url": "http://user:redacted@127.0.0.1:9"`,
		`"name": {`, `"const": "make item"`, `"/mcp": {`} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("the export lacks %s", want)
		}
	}
	if bytes.Contains(raw, []byte("pw@")) {
		t.Errorf("the export holds the URL's password")
	}

	broken := writeTemp(t, "broken.json", strings.Replace(string(raw), `"#/components/schemas/Tool_make_item_input/$defs/Item"`, `"#/$defs/Item"`, 1))
	if _, err := validateOpenAPI(t, broken); err == nil {
		t.Errorf("swagger-parser accepts a document with a $ref to nothing")
	}
}
