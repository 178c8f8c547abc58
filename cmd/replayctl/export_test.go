package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportFormats runs export in each format on an example tape: each
// writes its file and says so; and each mistake exits 2 with what to do,
// writing nothing.
func TestExportFormats(t *testing.T) {
	dir := t.TempDir()
	tape := "examples/everything.jsonl"
	for _, c := range []struct{ flag, file, what, has string }{
		{"--har", "e.har", "HAR 1.2", `"entries": [`},
		{"--k6", "e.js", "k6 script", `import http from "k6/http";`},
		{"--postman", "e.postman.json", "Postman Collection v2.1", `"schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"`},
		{"--insomnia", "e.insomnia.json", "Insomnia v4 export", `"__export_format": 4,`},
		{"--playwright", "e.spec.mjs", "Playwright Test spec", `import { test, expect } from "@playwright/test";`},
		{"--openapi", "e.openapi.json", "OpenAPI 3.1", `"openapi": "3.1.0"`},
	} {
		out := filepath.Join(dir, c.file)
		res := replayctl(t, "export", c.flag, tape, out)
		if res.code != 0 || res.stdout != "wrote "+out+" ("+c.what+")\n" {
			t.Errorf("export %s: exit %d, stdout %q, stderr %q", c.flag, res.code, res.stdout, res.stderr)
			continue
		}
		b, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(b), c.has) {
			t.Errorf("export %s wrote %d bytes (%v) without %s", c.flag, len(b), err, c.has)
		}
	}
	out := filepath.Join(dir, "u.js")
	if res := replayctl(t, "export", "--k6", "--url", "http://127.0.0.1:9/x", tape, out); res.code != 0 {
		t.Errorf("export --k6 --url: exit %d, stderr %q", res.code, res.stderr)
	} else if b, _ := os.ReadFile(out); !strings.Contains(string(b), `const URL = __ENV.MCP_URL || "http://127.0.0.1:9/x";`) {
		t.Errorf("export --k6 --url did not use the URL")
	}

	bad := filepath.Join(dir, "bad.out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", tape, bad}, "say which format: --har, --k6, --postman, --insomnia, --playwright, --openapi"},
		{[]string{"export", "--k6", "--postman", tape, bad}, "--k6 and --postman: say one format"},
		{[]string{"export", "--openapi", "--url", "127.0.0.1:3001/mcp", tape, bad}, "is not an http:// or https:// URL"},
		{[]string{"export", "--har", "--url", "http://127.0.0.1:9/", tape, bad}, "--url is for the formats"},
		{[]string{"export", "--k6", filepath.Join(dir, "missing.jsonl"), bad}, "missing.jsonl"},
	} {
		res := replayctl(t, c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) || strings.Contains(res.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s: %v", bad, err)
	}
}

// TestExportToStdout: OUT "-" is stdout, as --out json=- is, not a file
// named "-".
func TestExportToStdout(t *testing.T) {
	dash := filepath.Join("..", "..", "-") // replayctl runs at the module root
	t.Cleanup(func() { os.Remove(dash) })
	res := replayctl(t, "export", "--postman", "examples/quickstart.jsonl", "-")
	if res.code != 0 || !json.Valid([]byte(res.stdout)) || !strings.Contains(res.stdout, `"schema"`) {
		t.Errorf("export --postman TAPE -: exit %d, stdout %.200q, stderr %q; want 0 and the collection on stdout", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(dash); !os.IsNotExist(err) {
		t.Errorf("export wrote a file named -: %v", err)
	}
}

// TestExportKeepsAnExistingFile: export, like import and convert, refuses
// to write over a file that exists unless --force, and leaves it as it was
// (a k6 script or collection the user edited by hand is theirs).
func TestExportKeepsAnExistingFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "load.js")
	const kept = "// a script the user edited\n"
	if err := os.WriteFile(out, []byte(kept), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "export", "--k6", "examples/quickstart.jsonl", out)
	if res.code != 2 || !strings.Contains(res.stderr, out+" exists; pass --force") {
		t.Errorf("export onto an existing file: exit %d, stderr %q; want 2 and %q", res.code, res.stderr, "exists; pass --force")
	}
	if b, _ := os.ReadFile(out); string(b) != kept {
		t.Errorf("export changed the existing file to %.60q", b)
	}
	res = replayctl(t, "export", "--k6", "--force", "examples/quickstart.jsonl", out)
	if res.code != 0 {
		t.Errorf("export --force: exit %d, stderr %q", res.code, res.stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `import http from "k6/http";`) {
		t.Errorf("export --force left %.60q", b)
	}
}
