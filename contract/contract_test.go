package contract

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/validator"
)

var examples = []string{"../examples/everything.jsonl", "../examples/go-sdk-2025.jsonl", "../examples/go-sdk-2026.jsonl", "../examples/quickstart.jsonl"}

func draw(t *testing.T, paths ...string) *Contract {
	t.Helper()
	var srcs []tape.Source
	for _, p := range paths {
		srcs = append(srcs, tape.File(p))
	}
	c, err := Draw(srcs...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// roundTrip writes c and reads it back, as a contract file is.
func roundTrip(t *testing.T, c *Contract) *Contract {
	t.Helper()
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestDrawExamples draws the contract of the example tapes: every tool
// the tapes list has its input schema, the tools called their output
// schemas with the number of samples; what every answer had is required,
// a value that repeats is an enum, and a tool only ever answered with an
// error has no output.
func TestDrawExamples(t *testing.T) {
	c := roundTrip(t, draw(t, examples...))
	if len(c.Tapes) != 4 || c.Format != Format || c.Version != Version {
		t.Errorf("tapes %v, format %q %d", c.Tapes, c.Format, c.Version)
	}
	for _, w := range []struct {
		tool             string
		samples, errors  int
		input, hasOutput bool
	}{
		{"echo", 13, 0, true, true}, // 12 in everything.jsonl, 1 in quickstart.jsonl
		{"get-sum", 12, 0, true, true},
		{"divide", 0, 1, false, false},
		{"get-tiny-image", 0, 0, true, false}, // listed, never called
	} {
		e := c.Tools[w.tool]
		if e == nil {
			t.Errorf("no tool %s", w.tool)
			continue
		}
		if e.Samples != w.samples || e.Errors != w.errors || (len(e.Input) > 0) != w.input || (e.Output != nil) != w.hasOutput {
			t.Errorf("tool %s: %d samples, %d errors, input %v, output %v; want %d, %d, %v, %v", w.tool, e.Samples, e.Errors, len(e.Input) > 0, e.Output != nil, w.samples, w.errors, w.input, w.hasOutput)
		}
	}
	out := c.Tools["get-sum"].Output
	item := out.Properties["content"].Items
	if !slices.Equal(out.Required, []string{"content"}) || !slices.Equal(item.Required, []string{"text", "type"}) ||
		!slices.Equal(item.Properties["type"].Enum, []string{"text"}) || item.Properties["text"].Enum != nil ||
		item.Properties["text"].Format != "" || item.Samples != 12 {
		t.Errorf("get-sum's output: %+v, content items %+v", out, item)
	}
	if e := c.Resources["test://static/resource/1"]; e == nil || e.Samples != 1 {
		t.Errorf("resource test://static/resource/1: %+v", e)
	}
	var in struct {
		Required []string `json:"required"`
	}
	if e := c.Prompts["test_prompt_with_arguments"]; e == nil || json.Unmarshal(e.Input, &in) != nil || len(in.Required) == 0 || e.Samples != 2 {
		t.Errorf("prompt test_prompt_with_arguments: %+v", e)
	}
}

// observe draws a schema from JSON values.
func observe(t *testing.T, values ...string) *Schema {
	t.Helper()
	s := &Schema{}
	for _, v := range values {
		x, err := decode([]byte(v))
		if err != nil {
			t.Fatal(err)
		}
		s.Observe(x)
	}
	s.Finish()
	return s
}

func TestInferenceIsConservative(t *testing.T) {
	s := observe(t, `{"a":1,"b":"x","c":null}`, `{"a":2,"c":"y"}`, `{"a":3.5,"c":null}`)
	if !slices.Equal(s.Required, []string{"a", "c"}) || s.Samples != 3 {
		t.Errorf("required %v (samples %d); want a and c, b absent once", s.Required, s.Samples)
	}
	if got := s.Properties["a"].Type; !slices.Equal(got, Types{"number"}) {
		t.Errorf("a: %v, want number (an integer, then 3.5)", got)
	}
	if got := s.Properties["c"].Type; !slices.Equal(got, Types{"null", "string"}) {
		t.Errorf("c: %v, want null and string", got)
	}
	for _, c := range []struct {
		values []string
		enum   []string
		format string
	}{
		{[]string{`"a"`, `"a"`, `"b"`, `"a"`, `"b"`, `"a"`}, []string{"a", "b"}, ""},
		{[]string{`"a"`, `"a"`}, nil, ""},                             // too few to tell
		{[]string{`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"f"`}, nil, ""}, // never repeats
		{[]string{`"2026-01-01T00:00:00Z"`, `"2026-02-01T10:00:00.5+01:00"`}, nil, "date-time"},
		{[]string{`"https://a.example/x"`, `"file:///tmp/x"`}, nil, "uri"},
		{[]string{`"https://a.example/x"`}, nil, ""}, // one sample
		{[]string{`"Echo: hi"`, `"Echo: ho"`}, nil, ""},
		{[]string{`"6f1c1a4e-1b2c-4d3e-8f90-0a1b2c3d4e5f"`, `"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"`}, nil, "uuid"},
	} {
		s := observe(t, c.values...)
		if !slices.Equal(s.Enum, c.enum) || s.Format != c.format {
			t.Errorf("%v: enum %v format %q; want %v %q", c.values, s.Enum, s.Format, c.enum, c.format)
		}
	}
}

// check runs the contract on one live answer to the request req.
func check(c *Contract, req, answer string) []string {
	var out []string
	for _, d := range c.CheckAnswer(validator.Subject{Request: []byte(req)}, []byte(answer)) {
		out = append(out, d.Path+" "+string(d.Kind)+" "+string(d.Expected)+" "+string(d.Actual))
	}
	return out
}

// TestCheckAnswer: an answer as recorded passes; a changed type fails at
// exactly its path; a member every sample had, missing, fails there; a
// new member passes; a tool the contract lacks fails at $; other methods
// and errors are not its business.
func TestCheckAnswer(t *testing.T) {
	c := roundTrip(t, draw(t, examples...))
	const sum = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":1,"b":2}}}`
	for _, tc := range []struct {
		name, req, answer string
		want              []string
	}{
		{"as recorded", sum, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"The sum of 1 and 2 is 3."}]}}`, nil},
		{"new member", sum, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3","annotations":{}}],"isError":false}}`, nil},
		{"type changed", sum, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":3}]}}`, []string{`result.content[0].text type "string" 3`}},
		{"missing", sum, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text"}]}}`, []string{`result.content[0].text missing "string" `}},
		{"enum", sum, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","text":"x"}]}}`, []string{`result.content[0].type enum ["text"] "image"`}},
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{`$ added`}},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, `{"jsonrpc":"2.0","id":1,"result":{"prompts":3}}`, nil},
		{"tools/list as recorded", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get-sum","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}},{"name":"elsewhere","inputSchema":{}}]}}`, nil},
		{"tools/list input changed", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"},{"name":"get-sum","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"c":{"type":"number"}},"required":["a","c"],"description":"new"}}]}}`,
			[]string{`result.tools[1].inputSchema.properties.a type "number" "string"`, `result.tools[1].inputSchema.properties.b missing "number" `, `result.tools[1].inputSchema.properties.c added  "number"`}},
		{"error", sum, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`, nil},
	} {
		got := check(c, tc.req, tc.answer)
		if tc.name == "unknown tool" && len(got) == 1 && strings.HasPrefix(got[0], "$ added ") && strings.HasSuffix(got[0], `"nope"`) {
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDiff: a contract compared with itself has no change; with one whose
// tool's output member changed type, exactly that, breaking; a tool
// removed is breaking, one added is not.
func TestDiff(t *testing.T) {
	a := draw(t, examples...)
	if cs := Diff(a, a); len(cs) != 0 {
		t.Errorf("a contract differs from itself: %+v", cs)
	}
	b := roundTrip(t, a)
	b.Tools["get-sum"].Output.Properties["content"].Items.Properties["text"].Type = Types{"number"}
	delete(b.Tools, "echo")
	b.Tools["new-tool"] = &Entry{}
	var got []string
	for _, c := range Diff(a, b) {
		got = append(got, c.What+" "+c.Part+" "+c.Path+" "+c.Kind+" "+string(c.A)+" "+string(c.B)+" "+map[bool]string{true: "breaking", false: "ok"}[c.Breaking])
	}
	want := []string{
		"tool echo   removed   breaking",
		`tool get-sum output result.content[*].text type "string" "number" breaking`,
		"tool new-tool   added   ok",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadRefuses(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"format":"replayctl-tape"}`, "not a replayctl contract"},
		{`{"format":"replayctl-contract","version":2}`, "version 2"},
		{`[1`, "not a contract (JSON)"},
	} {
		if _, err := Read(strings.NewReader(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read(%s): %v; want %q", c.doc, err, c.want)
		}
	}
}
