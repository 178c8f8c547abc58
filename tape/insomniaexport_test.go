package tape

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/replayctl/replayctl/internal/testserver"
)

func exportInsomnia(t *testing.T, path string, opts ...ExportOption) string {
	t.Helper()
	return exportFile(t, path, "insomnia.json", EncodeInsomnia, opts...)
}

// insomniaResource is what the tests read of a resource.
type insomniaResource struct {
	ID          string            `json:"_id"`
	Type        string            `json:"_type"`
	ParentID    *string           `json:"parentId"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	URL         string            `json:"url"`
	Method      string            `json:"method"`
	Data        map[string]string `json:"data"`
	Body        struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"body"`
	Headers []struct {
		Name, Value string
	} `json:"headers"`
}

// checkInsomniaSchema validates the export at file against
// testdata/export/insomnia-v4.schema.json.
func checkInsomniaSchema(t *testing.T, file string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testserver.Root(t), "testdata", "export", "insomnia-v4.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("the schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("the schema: %v", err)
	}
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("the export is not JSON: %v", err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("the export does not match the Insomnia v4 schema: %v", err)
	}
}

// readInsomnia reads the export at file with Insomnia's importers
// (testdata/export/insomnia-check.js): it fails the test unless the v4
// importer took it, and returns the resources it made.
func readInsomnia(t *testing.T, file string) []insomniaResource {
	t.Helper()
	nodeTool(t, "insomnia-importers")
	script := filepath.Join(testserver.Root(t), "testdata", "export", "insomnia-check.js")
	out, err := exec.Command("node", script, file).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("insomnia-importers cannot read the export: %v\n%s", err, stderr)
	}
	var got struct {
		Importer  string             `json:"importer"`
		Resources []insomniaResource `json:"resources"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("insomnia-check.js: %v\n%s", err, out)
	}
	if got.Importer != "insomnia-4" {
		t.Fatalf("taken by the importer %q, want insomnia-4", got.Importer)
	}
	return got.Resources
}

// TestInsomniaExportParses exports each test tape: the export matches the
// v4 schema, Insomnia's v4 importer takes it, and it holds one workspace,
// its base environment with the URL, a folder per session and in it one
// request per client message in order, its body the exact message; every
// parent is a resource of the export and every id is unique.
func TestInsomniaExportParses(t *testing.T) {
	for _, path := range exportTapes {
		t.Run(filepath.Base(path), func(t *testing.T) {
			file := exportInsomnia(t, path)
			checkInsomniaSchema(t, file)
			res := readInsomnia(t, file)
			byID := map[string]insomniaResource{}
			for _, r := range res {
				if _, dup := byID[r.ID]; dup {
					t.Errorf("id %s twice", r.ID)
				}
				byID[r.ID] = r
			}
			if len(res) < 2 || res[0].Type != "workspace" || res[0].ParentID != nil || res[1].Type != "environment" ||
				*res[1].ParentID != res[0].ID || res[1].Data["mcpUrl"] == "" {
				t.Fatalf("want a workspace, then its base environment with mcpUrl; got %+v", res[:min(2, len(res))])
			}
			var requests []insomniaResource
			for _, r := range res[2:] {
				parent, ok := byID[*r.ParentID]
				switch {
				case !ok:
					t.Errorf("%s %s: parent %s is not in the export", r.Type, r.Name, *r.ParentID)
				case r.Type == "request_group" && parent.Type != "workspace", r.Type == "request" && parent.Type != "request_group":
					t.Errorf("%s %s in a %s", r.Type, r.Name, parent.Type)
				}
				if r.Type == "request" {
					requests = append(requests, r)
				}
			}
			want := clientMessages(t, path)
			if len(requests) != len(want) {
				t.Fatalf("%d requests, want one per client message: %d", len(requests), len(want))
			}
			for i, m := range want {
				q := requests[i]
				folder := byID[*q.ParentID].Name
				if folder != "session "+m.Session || q.Method != "POST" || q.URL != "{{ _.mcpUrl }}" || q.Body.Text != string(m.Msg) || q.Body.MimeType != "application/json" ||
					!strings.HasPrefix(q.Name, "seq "+itoa(m.Seq)+" ") {
					t.Errorf("request %d: %s %s %s in %q, body %s; want seq %d of session %s, body %s", i, q.Name, q.Method, q.URL, folder, q.Body.Text, m.Seq, m.Session, m.Msg)
				}
			}
		})
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestInsomniaExportSessionsAndSecrets: an HTTP tape of two sessions with
// credentials: none is in the export; the URL is masked; each request
// after initialize sends the session id of its own session's initialize
// (a response tag), and the recorded headers; the description shows the
// recorded answer. Exporting twice gives the same ids.
func TestInsomniaExportSessionsAndSecrets(t *testing.T) {
	path := writeTemp(t, "http.jsonl", httpTape)
	file := exportInsomnia(t, path)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cr3t", "pw@", "token=abc", "Authorization"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the export holds %q", secret)
		}
	}
	checkInsomniaSchema(t, file)
	res := readInsomnia(t, file)
	for i, r := range readInsomnia(t, exportInsomnia(t, path)) {
		if r.ID != res[i].ID {
			t.Errorf("resource %d: id %s in a second export, %s in the first; want the same", i, r.ID, res[i].ID)
		}
	}
	if u := res[1].Data["mcpUrl"]; u != "http://user:redacted@127.0.0.1:9/mcp?token=redacted" {
		t.Errorf("mcpUrl %q", u)
	}
	byID := map[string]insomniaResource{}
	var requests []insomniaResource
	for _, r := range res {
		byID[r.ID] = r
		if r.Type == "request" {
			requests = append(requests, r)
		}
	}
	var names []string
	for _, q := range requests {
		names = append(names, byID[*q.ParentID].Name+"/"+q.Name)
	}
	if want := "session a/seq 0 initialize,session a/seq 2 notifications/initialized,session a/seq 5 tools/list,session b/seq 3 tools/call"; strings.Join(names, ",") != want {
		t.Fatalf("requests %s, want %s", strings.Join(names, ","), want)
	}
	header := func(q insomniaResource, name string) string {
		for _, h := range q.Headers {
			if strings.EqualFold(h.Name, name) {
				return h.Value
			}
		}
		return ""
	}
	if h := header(requests[0], "X-Trace"); h != "t1" {
		t.Errorf("recorded header X-Trace %q, want t1", h)
	}
	if h := header(requests[0], "Mcp-Session-Id"); h != "" {
		t.Errorf("initialize sends a session id: %q", h)
	}
	tag := "{% response 'header', '" + requests[0].ID + "', 'b64::TWNwLVNlc3Npb24tSWQ=::46b', 'never', 60 %}"
	for _, q := range requests[1:3] {
		if h := header(q, "Mcp-Session-Id"); h != tag {
			t.Errorf("%s: Mcp-Session-Id %q, want the header of the answer to its session's initialize, %q", q.Name, h, tag)
		}
	}
	if h := header(requests[3], "Mcp-Session-Id"); h != "" {
		t.Errorf("session b (no initialize) sends session a's id: %q", h)
	}
	if !strings.Contains(requests[3].Description, "The recorded answer (error)") || !strings.Contains(requests[0].Description, "The recorded answer (result)") {
		t.Errorf("descriptions lack the recorded answers:\n%s\n%s", requests[0].Description, requests[3].Description)
	}
}
