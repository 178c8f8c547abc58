package tapediff

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// exch is one request of a test tape and its answer: answer is the JSON
// of a result member, or, starting with "error:", of an error member; ""
// for no answer.
type exch struct{ method, params, answer string }

// sideOf writes exchanges as a tape: each request c2s in session s1 with
// ids from 1, its answer s2c right after.
func sideOf(name, version string, xs ...exch) Side {
	s := Side{Name: name, Header: tape.Header{ProtocolVersion: version}}
	add := func(dir tape.Dir, msg string) {
		n := int64(len(s.Messages))
		s.Messages = append(s.Messages, tape.Message{Seq: n, Line: n + 2, Session: "s1", Dir: dir, Msg: []byte(msg)})
	}
	for i, x := range xs {
		params := ""
		if x.params != "" {
			params = `,"params":` + x.params
		}
		add(tape.C2S, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q%s}`, i+1, x.method, params))
		switch {
		case x.answer == "":
		case strings.HasPrefix(x.answer, "error:"):
			add(tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":%s}`, i+1, strings.TrimPrefix(x.answer, "error:")))
		default:
			add(tape.S2C, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, i+1, x.answer))
		}
	}
	return s
}

func initialize(caps string) exch {
	return exch{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`,
		`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"s","version":"1"}}`}
}

func toolsList(tools ...string) exch {
	return exch{"tools/list", "", `{"tools":[` + strings.Join(tools, ",") + `]}`}
}

const (
	echoTool = `{"name":"echo","description":"Echoes","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`
	addTool  = `{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}}}}`
)

// changes writes each change as "kind name path" (breaking ones with a !).
func changes(res Result) []string {
	var out []string
	for _, c := range res.Changes {
		s := fmt.Sprintf("%s %s %s", c.Kind, c.Name, c.Path)
		if c.Breaking {
			s = "!" + s
		}
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

func TestClassification(t *testing.T) {
	call := func(name, args, answer string) exch {
		return exch{"tools/call", `{"name":"` + name + `","arguments":` + args + `}`, answer}
	}
	ok := `{"content":[{"type":"text","text":"hi"}]}`
	tests := []struct {
		name string
		a, b []exch
		want []string
	}{
		{"nothing changed", []exch{initialize(`{"tools":{}}`), toolsList(echoTool), call("echo", `{"message":"hi"}`, ok)},
			[]exch{initialize(`{"tools":{}}`), toolsList(echoTool), call("echo", `{"message":"hi"}`, ok)}, nil},
		{"tool removed", []exch{toolsList(echoTool, addTool)}, []exch{toolsList(echoTool)}, []string{"!tool_removed add"}},
		{"tool added", []exch{toolsList(echoTool)}, []exch{toolsList(addTool, echoTool)}, []string{"tool_added add"}},
		{"required field added",
			[]exch{toolsList(echoTool)},
			[]exch{toolsList(`{"name":"echo","description":"Echoes","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"times":{"type":"integer"}},"required":["message","times"]}}`)},
			[]string{"!required_added echo inputSchema.properties.times"}},
		{"optional param added",
			[]exch{toolsList(echoTool)},
			[]exch{toolsList(`{"name":"echo","description":"Echoes","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"times":{"type":"integer"}},"required":["message"]}}`)},
			[]string{"param_added echo inputSchema.properties.times"}},
		{"param made required",
			[]exch{toolsList(`{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}`)},
			[]exch{toolsList(`{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`)},
			[]string{"!param_made_required echo inputSchema.properties.message"}},
		{"param made optional",
			[]exch{toolsList(`{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`)},
			[]exch{toolsList(`{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}`)},
			[]string{"param_made_optional echo inputSchema.properties.message"}},
		{"input property removed",
			[]exch{toolsList(addTool)},
			[]exch{toolsList(`{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]},"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}}}}`)},
			[]string{"!property_removed add inputSchema.properties.b"}},
		{"input type changed",
			[]exch{toolsList(echoTool)},
			[]exch{toolsList(`{"name":"echo","description":"Echoes","inputSchema":{"type":"object","properties":{"message":{"type":["string","null"]}},"required":["message"]}}`)},
			[]string{"!type_changed echo inputSchema.properties.message.type"}},
		{"output type changed and output property added",
			[]exch{toolsList(addTool)},
			[]exch{toolsList(`{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},"outputSchema":{"type":"object","properties":{"sum":{"type":"string"},"unit":{"type":"string"}}}}`)},
			[]string{"!type_changed add outputSchema.properties.sum.type", "property_added add outputSchema.properties.unit"}},
		{"output property removed",
			[]exch{toolsList(addTool)},
			[]exch{toolsList(`{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]},"outputSchema":{"type":"object"}}`)},
			[]string{"!property_removed add outputSchema.properties.sum"}},
		{"description and other members changed",
			[]exch{toolsList(echoTool)},
			[]exch{toolsList(`{"name":"echo","title":"Echo","description":"Echoes back","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"what","minLength":1}},"required":["message"]}}`)},
			[]string{"description_changed echo description", "description_changed echo inputSchema.properties.message.description",
				"schema_changed echo inputSchema.properties.message.minLength", "definition_changed echo title"}},
		{"success to JSON-RPC error",
			[]exch{call("echo", `{"message":"hi"}`, ok)},
			[]exch{call("echo", `{"message":"hi"}`, `error:{"code":-32602,"message":"Unknown tool: echo"}`)},
			[]string{"!success_to_error echo"}},
		{"success to isError result",
			[]exch{call("echo", `{"message":"hi"}`, ok)},
			[]exch{call("echo", `{"message":"hi"}`, `{"content":[{"type":"text","text":"boom"}],"isError":true}`)},
			[]string{"!success_to_error echo"}},
		{"error to success",
			[]exch{call("echo", `{"message":"hi"}`, `error:{"code":-32602,"message":"Unknown tool: echo"}`)},
			[]exch{call("echo", `{"message":"hi"}`, ok)},
			[]string{"error_to_success echo"}},
		{"error changed",
			[]exch{call("echo", `{}`, `error:{"code":-32602,"message":"missing message"}`)},
			[]exch{call("echo", `{}`, `error:{"code":-32603,"message":"missing message"}`)},
			[]string{"error_changed echo error.code"}},
		{"answer gone", []exch{call("echo", `{"message":"hi"}`, ok)}, []exch{call("echo", `{"message":"hi"}`, "")},
			[]string{"!answer_missing echo"}},
		{"answer content changed",
			[]exch{call("echo", `{"message":"hi"}`, ok)},
			[]exch{call("echo", `{"message":"hi"}`, `{"content":[{"type":"text","text":"hello"}]}`)},
			[]string{"answer_changed echo result.content[0].text"}},
		{"volatile values are normalised away",
			[]exch{call("now", `{}`, `{"content":[{"type":"text","text":"id 0b7d2f44-8a4e-4a3f-9a56-0e2f6b1c3d4e at 2026-01-02T03:04:05Z"}]}`)},
			[]exch{call("now", `{}`, `{"content":[{"type":"text","text":"id 9c1e5a77-1b2c-4d3e-8f90-aabbccddeeff at 2026-05-06T07:08:09.123Z"}]}`)},
			nil},
		{"capability removed and added",
			[]exch{initialize(`{"tools":{"listChanged":true},"resources":{"subscribe":true}}`)},
			[]exch{initialize(`{"tools":{"listChanged":false},"resources":{},"logging":{}}`)},
			[]string{"!capability_removed resources.subscribe capabilities.resources.subscribe",
				"!capability_removed tools.listChanged capabilities.tools.listChanged", "capability_added logging capabilities.logging"}},
		{"capability value changed",
			[]exch{initialize(`{"experimental":{"x":1}}`)},
			[]exch{initialize(`{"experimental":{"x":2}}`)},
			[]string{"capability_changed experimental.x capabilities.experimental.x"}},
		{"protocol version changed",
			[]exch{initialize(`{}`)},
			[]exch{{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`,
				`{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"2"}}`}},
			[]string{"!protocol_version_changed  protocolVersion", "server_info_changed  serverInfo"}},
		{"prompt arguments",
			[]exch{{"prompts/list", "", `{"prompts":[{"name":"p","arguments":[{"name":"x","required":true},{"name":"y"},{"name":"z"}]},{"name":"q"}]}`}},
			[]exch{{"prompts/list", "", `{"prompts":[{"name":"p","arguments":[{"name":"x"},{"name":"y","required":true},{"name":"w","required":true},{"name":"v"}]}]}`}},
			[]string{"!param_made_required p arguments.y", "!property_removed p arguments.z",
				"!required_added p arguments.w", "!prompt_removed q", "param_made_optional p arguments.x", "param_added p arguments.v"}},
		{"resources and templates",
			[]exch{{"resources/list", "", `{"resources":[{"uri":"file:///a","name":"a"},{"uri":"file:///b","name":"b","mimeType":"text/plain"}]}`},
				{"resources/templates/list", "", `{"resourceTemplates":[{"uriTemplate":"file:///{x}","name":"x"}]}`}},
			[]exch{{"resources/list", "", `{"resources":[{"uri":"file:///b","name":"b","mimeType":"text/markdown"},{"uri":"file:///c","name":"c"}]}`},
				{"resources/templates/list", "", `{"resourceTemplates":[]}`}},
			[]string{"!resource_removed file:///a", "!resource_template_removed file:///{x}",
				"definition_changed file:///b mimeType", "resource_added file:///c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(sideOf("a.jsonl", "", tt.a...), sideOf("b.jsonl", "", tt.b...))
			if err != nil {
				t.Fatal(err)
			}
			if got := changes(res); !slices.Equal(got, tt.want) {
				t.Errorf("changes:\n got %q\nwant %q", got, tt.want)
			}
			breaking := 0
			for _, w := range tt.want {
				if strings.HasPrefix(w, "!") {
					breaking++
				}
			}
			if res.Summary.Breaking != breaking || res.Summary.Changes != len(tt.want) || res.Summary.NonBreaking != len(tt.want)-breaking {
				t.Errorf("summary %+v, want %d changes, %d breaking", res.Summary, len(tt.want), breaking)
			}
			if len(res.Unpaired) != 0 {
				t.Errorf("unpaired %+v, want none", res.Unpaired)
			}
		})
	}
}

// Every kind has a place in Kinds, and the breaking ones come first.
func TestKindsListed(t *testing.T) {
	seenOther := false
	for _, k := range Kinds() {
		if !k.Breaking() {
			seenOther = true
		} else if seenOther {
			t.Errorf("breaking kind %s after a non-breaking one", k)
		}
	}
	for k := range breaking {
		if !slices.Contains(Kinds(), k) {
			t.Errorf("breaking kind %s missing from Kinds", k)
		}
	}
}

// Pairing goes by session and order per method and params, not by seq:
// a tape with an extra request early on still pairs the rest, and the
// extra request is reported as unpaired.
func TestPairingByOrderNotSeq(t *testing.T) {
	hi := exch{"tools/call", `{"name":"echo","arguments":{"message":"hi"}}`, `{"content":[{"type":"text","text":"hi"}]}`}
	yo := exch{"tools/call", `{"arguments":{"message":"yo"},"name":"echo"}`, `{"content":[{"type":"text","text":"yo"}]}`}
	a := sideOf("a", "", hi, yo, hi)
	b := sideOf("b", "", exch{"ping", "", `{}`}, yo, hi, exch{"tools/call", `{"name":"echo","arguments":{"message":"yo"},"_meta":{"progressToken":7}}`, `{"content":[{"type":"text","text":"YO"}]}`}, hi)
	res, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := changes(res); len(got) != 0 {
		t.Errorf("changes %q, want none: hi pairs with hi, yo with yo", got)
	}
	var got []string
	for _, u := range res.Unpaired {
		got = append(got, fmt.Sprintf("%s %s seq %d", u.Side, u.Method, u.Seq))
	}
	want := []string{"b ping seq 0", "b tools/call seq 6"}
	if !slices.Equal(got, want) {
		t.Errorf("unpaired %q, want %q", got, want)
	}
	if res.Summary.Paired != 3 || res.Summary.UnpairedB != 2 || res.Summary.UnpairedA != 0 {
		t.Errorf("summary %+v, want 3 paired, 2 unpaired in B", res.Summary)
	}
}

// Requests with other params pair by method and name once the exact
// pairs are taken, and their params differences are reported.
func TestLoosePairingReportsParams(t *testing.T) {
	a := sideOf("a", "", exch{"tools/call", `{"name":"echo","arguments":{"message":"hi"}}`, `{"content":[]}`})
	b := sideOf("b", "", exch{"tools/call", `{"name":"echo","arguments":{"message":"ho"}}`, `{"content":[]}`})
	res, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changes(res), []string{"request_changed echo params.arguments.message"}; !slices.Equal(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
}

// A catalog listed by one tape only is not compared: its request is
// unpaired, its tools are not all "removed".
func TestCatalogListedOnce(t *testing.T) {
	res, err := Compare(sideOf("a", "", toolsList(echoTool)), sideOf("b", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || len(res.Unpaired) != 1 || res.Unpaired[0].Method != "tools/list" || res.Unpaired[0].Side != "a" {
		t.Errorf("changes %q unpaired %+v; want none and tools/list of A", changes(res), res.Unpaired)
	}
}

func TestBadMessageNamesLine(t *testing.T) {
	b := sideOf("b.jsonl", "", exch{"ping", "", `{}`})
	b.Messages[1].Msg = []byte(`{"id":1}`)
	_, err := Compare(sideOf("a.jsonl", ""), b)
	var e *Error
	if !errors.As(err, &e) || e.Tape != "b.jsonl" || e.Line != 3 || e.Seq != 1 || !errors.Is(err, jsonrpc.ErrInvalid) {
		t.Fatalf("err = %v, want an *Error for b.jsonl line 3 seq 1 wrapping jsonrpc.ErrInvalid", err)
	}
	if !strings.Contains(err.Error(), "b.jsonl line 3") {
		t.Errorf("error %q does not say where", err)
	}
}
