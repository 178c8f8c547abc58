package validator

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func mustNew(t testing.TB, opts ...Option) *Validator {
	t.Helper()
	v, err := New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return v
}

func TestCheckModes(t *testing.T) {
	const tools = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","description":"Echo","inputSchema":{"type":"object"}},{"name":"add","description":"Add","inputSchema":{"type":"object"}}]}}`
	tests := []struct {
		name     string
		mode     Mode
		required []string
		exp, act string
		want     []string
	}{
		// exact
		{"exact equal", Exact, nil, tools, tools, nil},
		{"exact changed", Exact, nil, `{"result":{"a":1,"b":"x"}}`, `{"result":{"a":2,"b":"x"}}`, []string{`changed result.a 1 2`}},
		{"exact bool", Exact, nil, `{"result":{"ok":true}}`, `{"result":{"ok":false}}`, []string{`changed result.ok true false`}},
		{"exact embedded JSON equal", Exact, nil,
			`{"result":{"content":[{"type":"text","text":"{\"temp\": 18, \"unit\":\"C\"}"}]}}`,
			`{"result":{"content":[{"type":"text","text":"{\"unit\":\"C\",\"temp\":18.0}"}]}}`, nil},
		{"exact embedded JSON differs inside", Exact, nil,
			`{"result":{"content":[{"type":"text","text":"{\"temp\":18,\"unit\":\"C\"}"}]}}`,
			`{"result":{"content":[{"type":"text","text":"{\"temp\":19,\"unit\":\"C\"}"}]}}`,
			[]string{`changed result.content[0].text.temp 18 19`}},
		{"exact embedded array", Exact, nil, `{"result":"\n [1, 2]"}`, `{"result":"[1,3]"}`, []string{`changed result[1] 2 3`}},
		{"exact one side not JSON", Exact, nil, `{"result":"{\"a\":1}"}`, `{"result":"{a:1}"}`, []string{`changed result "{\"a\":1}" "{a:1}"`}},
		{"exact object vs array text", Exact, nil, `{"result":"{}"}`, `{"result":"[]"}`, []string{`changed result "{}" "[]"`}},
		// structural
		{"structural values differ", Structural, nil,
			`{"result":{"a":1,"b":"x","c":true,"d":null,"e":[1,"s"]}}`,
			`{"result":{"a":2,"b":"y","c":false,"d":null,"e":[7,"t"]}}`, nil},
		{"structural type", Structural, nil, `{"result":{"a":1}}`, `{"result":{"a":"1"}}`, []string{`type result.a 1 "1"`}},
		{"structural members", Structural, nil, `{"result":{"a":1,"b":2}}`, `{"result":{"a":1,"c":2}}`,
			[]string{`removed result.b 2 `, `added result.c  2`}},
		{"structural longer array", Structural, nil, `{"result":[{"a":1}]}`, `{"result":[{"a":2},{"a":3}]}`, []string{`added result[1]  {"a":3}`}},
		{"structural shorter array", Structural, nil, `{"result":[1,2]}`, `{"result":[3]}`, []string{`removed result[1] 2 `}},
		{"structural element shape", Structural, nil, `{"result":[{"a":1}]}`, `{"result":[{"a":[]}]}`, []string{`type result[0].a 1 []`}},
		{"structural embedded shape", Structural, nil, `{"result":"{\"a\":1}"}`, `{"result":"{\"b\":1}"}`,
			[]string{`removed result.a 1 `, `added result.b  1`}},
		{"structural text", Structural, nil, `{"result":"hello"}`, `{"result":"{\"b\":1}"}`, nil},
		// partial
		{"partial equal names", Partial, []string{"result.tools[*].name"}, tools,
			strings.ReplaceAll(tools, `"Echo"`, `"Echoes"`), nil},
		{"partial name changed", Partial, []string{"result.tools[*].name"}, tools,
			strings.Replace(tools, `"add"`, `"sum"`, 1), []string{`changed result.tools[1].name "add" "sum"`}},
		{"partial fewer", Partial, []string{"result.tools[*].name"}, tools,
			`{"result":{"tools":[{"name":"echo"}]}}`, []string{`removed result.tools[1].name "add" `}},
		{"partial more", Partial, []string{"result.tools[*].name"}, `{"result":{"tools":[]}}`,
			`{"result":{"tools":[{"name":"echo"}]}}`, []string{`added result.tools[0].name  "echo"`}},
		{"partial wildcard matching nothing", Partial, []string{"result.tools[*].name"}, `{"result":{"tools":[]}}`, `{"result":{"tools":[]}}`, nil},
		{"partial missing on both", Partial, []string{"result.serverInfo.name"}, `{"result":{}}`, `{"result":{}}`,
			[]string{`missing result.serverInfo.name "required" `}},
		{"partial two fields", Partial, []string{"result.b", `$.result.a`}, `{"result":{"a":1,"b":2,"c":3}}`, `{"result":{"a":5,"b":2,"c":4}}`,
			[]string{`changed result.a 1 5`}},
		{"partial whole subtree", Partial, []string{"result.serverInfo"}, `{"result":{"serverInfo":{"name":"s","version":"1"}}}`,
			`{"result":{"serverInfo":{"name":"s","version":"2"}}}`, []string{`changed result.serverInfo.version "1" "2"`}},
		{"partial any depth", Partial, []string{"**.id"}, `{"result":{"a":{"id":1},"b":[{"id":2}]}}`, `{"result":{"a":{"id":1},"b":[{"id":3}]}}`,
			[]string{`changed result.b[0].id 2 3`}},
		{"partial inside embedded JSON", Partial, []string{"result.content[*].text.status"},
			`{"result":{"content":[{"text":"{\"status\":\"ok\",\"at\":1}"}]}}`,
			`{"result":{"content":[{"text":"{\"status\":\"ok\",\"at\":2}"}]}}`, nil},
		{"partial envelope not matched", Partial, []string{"id"}, `{"id":1,"result":{}}`, `{"id":2,"result":{}}`,
			[]string{`missing id "required" `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []Option{WithMode(tt.mode)}
			if tt.required != nil {
				opts = []Option{WithRules(Rule{
					Scope: Scope{Always: true}, Mode: tt.mode, RequiredFields: tt.required,
				})}
			}
			v := mustNew(t, opts...)
			got, err := v.Check(Subject{Method: "tools/list", Kind: "request"}, []byte(tt.exp), []byte(tt.act))
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if got.Mode != tt.mode {
				t.Errorf("got mode %q, want %q", got.Mode, tt.mode)
			}
			check(t, got.Diffs, tt.want)
			if got.Failed() != (tt.want != nil) {
				t.Errorf("got Failed %v, want %v", got.Failed(), tt.want != nil)
			}
		})
	}
}

func TestCheckTransition(t *testing.T) {
	tests := []struct {
		name     string
		mode     Mode
		exp, act string
		want     string
		diffs    []string
	}{
		{"success to error", Exact, `{"id":1,"result":{"a":1}}`, `{"id":1,"error":{"code":-32603,"message":"boom"}}`, "success→error",
			[]string{`success→error $ {"a":1} {"code":-32603,"message":"boom"}`}},
		{"error to success", Structural, `{"id":1,"error":{"code":-1,"message":"x"}}`, `{"id":1,"result":{}}`, "error→success",
			[]string{`error→success $ {"code":-1,"message":"x"} {}`}},
		{"partial too", Partial, `{"result":{"a":1}}`, `{"error":{"code":1,"message":"m"}}`, "success→error",
			[]string{`success→error $ {"a":1} {"code":1,"message":"m"}`}},
		{"schema also checks the error", Schema, `{"result":{}}`, `{"jsonrpc":"2.0","error":{"code":1.5}}`, "success→error",
			[]string{`success→error $ {} {"code":1.5}`, `type error.code "integer" 1.5`, `missing error.message "string" `}},
		{"both errors", Exact, `{"error":{"code":1,"message":"a"}}`, `{"error":{"code":1,"message":"b"}}`, "",
			[]string{`changed error.message "a" "b"`}},
		{"notifications", Exact, `{"method":"n","params":{}}`, `{"method":"n","params":{"a":1}}`, "",
			[]string{`added params.a  1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.mode == Partial {
				opts = append(opts, WithRules(Rule{Scope: Scope{Always: true}, RequiredFields: []string{"result.a"}}))
			} else {
				opts = append(opts, WithMode(tt.mode))
			}
			v := mustNew(t, opts...)
			got, err := v.Check(Subject{Method: "x"}, []byte(tt.exp), []byte(tt.act))
			if err != nil {
				t.Fatal(err)
			}
			if got.Transition != tt.want {
				t.Errorf("got transition %q, want %q", got.Transition, tt.want)
			}
			check(t, got.Diffs, tt.diffs)
		})
	}
}

func TestCheckNormalizeAndTolerance(t *testing.T) {
	tests := []struct {
		name     string
		opts     []Option
		exp, act string
		want     []string
	}{
		{"uuid off", nil, `{"result":"id 0b9a3c1e-1234-4abc-8def-0123456789ab"}`, `{"result":"id 7f00aa11-2222-4bbb-9ccc-abcdefabcdef"}`,
			[]string{`changed result "id 0b9a3c1e-1234-4abc-8def-0123456789ab" "id 7f00aa11-2222-4bbb-9ccc-abcdefabcdef"`}},
		{"uuid on", []Option{WithNormalize("uuid")}, `{"result":"id 0b9a3c1e-1234-4abc-8def-0123456789ab"}`, `{"result":"id 7F00AA11-2222-4BBB-9CCC-ABCDEFABCDEF"}`, nil},
		{"uuid is not a timestamp", []Option{WithNormalize("timestamp")}, `{"result":"0b9a3c1e-1234-4abc-8def-0123456789ab"}`, `{"result":"7f00aa11-2222-4bbb-9ccc-abcdefabcdef"}`,
			[]string{`changed result "0b9a3c1e-1234-4abc-8def-0123456789ab" "7f00aa11-2222-4bbb-9ccc-abcdefabcdef"`}},
		{"timestamp", []Option{WithNormalize("timestamp")}, `{"result":{"at":"2026-01-02T03:04:05Z","s":"done at 2026-01-02 03:04:05.123+01:00."}}`,
			`{"result":{"at":"2027-11-12T13:14:15.5-05:00","s":"done at 2026-03-04 10:00:00,9+0100."}}`, nil},
		{"timestamp other text", []Option{WithNormalize("timestamp")}, `{"result":"at 2026-01-02T03:04:05Z ok"}`, `{"result":"at 2026-01-02T03:04:06Z fail"}`,
			[]string{`changed result "at 2026-01-02T03:04:05Z ok" "at 2026-01-02T03:04:06Z fail"`}},
		{"ids", []Option{WithNormalize("ids")}, `{"result":"created item 1234 (req_8f3a2b9c) v2"}`, `{"result":"created item 98 (req_00aa11bb) v2"}`, nil},
		{"ids keep short words", []Option{WithNormalize("ids")}, `{"result":"format v2"}`, `{"result":"format v3"}`,
			[]string{`changed result "format v2" "format v3"`}},
		{"ids not numbers", []Option{WithNormalize("ids")}, `{"result":{"n":1}}`, `{"result":{"n":2}}`, []string{`changed result.n 1 2`}},
		{"normalise inside embedded JSON", []Option{WithNormalize("uuid")}, `{"result":"{\"id\":\"0b9a3c1e-1234-4abc-8def-0123456789ab\"}"}`,
			`{"result":"{\"id\":\"7f00aa11-2222-4bbb-9ccc-abcdefabcdef\"}"}`, nil},
		{"JavaScript date in a text", []Option{WithNormalize("timestamp")},
			`{"result":{"content":[{"type":"text","text":"Server time: Mon Nov 23 2026 10:00:00 GMT+0000 (Coordinated Universal Time); 3 jobs"}]}}`,
			`{"result":{"content":[{"type":"text","text":"Server time: Tue Nov 24 2026 08:12:45 GMT+0100 (Central European Standard Time); 3 jobs"}]}}`, nil},
		{"JavaScript date in a text, a real change beside it", []Option{WithNormalize("timestamp")},
			`{"result":"Server time: Mon Nov 23 2026 10:00:00 GMT+0000 (Coordinated Universal Time); 3 jobs"}`,
			`{"result":"Server time: Tue Nov 24 2026 08:12:45 GMT+0100 (Central European Standard Time); 4 jobs"}`,
			[]string{`changed result "Server time: Mon Nov 23 2026 10:00:00 GMT+0000 (Coordinated Universal Time); 3 jobs" "Server time: Tue Nov 24 2026 08:12:45 GMT+0100 (Central European Standard Time); 4 jobs"`}},
		{"pattern", []Option{WithNormalizePattern(`took \d+ ms`, "took <n> ms")}, `{"result":"took 12 ms, 3 rows"}`, `{"result":"took 480 ms, 3 rows"}`, nil},
		{"pattern, a real change beside it", []Option{WithNormalizePattern(`took \d+ ms`, "took <n> ms")}, `{"result":"took 12 ms, 3 rows"}`, `{"result":"took 480 ms, 4 rows"}`,
			[]string{`changed result "took 12 ms, 3 rows" "took 480 ms, 4 rows"`}},
		{"no tolerance", nil, `{"result":{"t":18.0}}`, `{"result":{"t":18.01}}`, []string{`changed result.t 18.0 18.01`}},
		{"absolute in", []Option{WithTolerance(0.01, 0)}, `{"result":{"t":18.0}}`, `{"result":{"t":18.01}}`, nil},
		{"absolute out", []Option{WithTolerance(0.01, 0)}, `{"result":{"t":18.0}}`, `{"result":{"t":18.02}}`, []string{`changed result.t 18.0 18.02`}},
		{"relative in", []Option{WithTolerance(0, 0.1)}, `{"result":{"t":1000}}`, `{"result":{"t":1099}}`, nil},
		{"relative out", []Option{WithTolerance(0, 0.1)}, `{"result":{"t":1000}}`, `{"result":{"t":1101}}`, []string{`changed result.t 1000 1101`}},
		{"relative of zero", []Option{WithTolerance(0, 0.1)}, `{"result":{"t":0}}`, `{"result":{"t":0.001}}`, []string{`changed result.t 0 0.001`}},
		{"tolerance ignores types", []Option{WithTolerance(1, 0)}, `{"result":{"t":1}}`, `{"result":{"t":"1"}}`, []string{`type result.t 1 "1"`}},
		{"huge numbers", []Option{WithTolerance(1, 0)}, `{"result":1e400}`, `{"result":2e400}`, []string{`changed result 1e400 2e400`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustNew(t, tt.opts...)
			got, err := v.Check(Subject{}, []byte(tt.exp), []byte(tt.act))
			if err != nil {
				t.Fatal(err)
			}
			check(t, got.Diffs, tt.want)
			// Compare applies the same normalisers and tolerance.
			diffs, err := v.Compare([]byte(tt.exp), []byte(tt.act))
			if err != nil {
				t.Fatal(err)
			}
			check(t, diffs, tt.want)
		})
	}
}

func TestCheckNotJSON(t *testing.T) {
	v := mustNew(t, WithMode(Schema))
	for _, tt := range []struct{ name, exp, act string }{
		{"actual", `{}`, `{"result":`},
		{"expected", `{"result":`, `{"result":{}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Check(Subject{}, []byte(tt.exp), []byte(tt.act))
			if !errors.Is(err, ErrNotJSON) || !strings.Contains(err.Error(), tt.name) {
				t.Fatalf("got %v, want ErrNotJSON naming the %s message", err, tt.name)
			}
		})
	}
	// Schema needs no recording.
	got, err := v.Check(Subject{Method: "ping"}, nil, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if err != nil || got.Failed() {
		t.Fatalf("got %+v, %v; want a pass without a recording", got, err)
	}
}

func TestCheckDisabled(t *testing.T) {
	v := mustNew(t, WithDisabled())
	got, err := v.Check(Subject{}, []byte(`{"result":1}`), []byte(`{"result":2}`))
	if err != nil || got.Failed() {
		t.Fatalf("got %+v, %v; want no differences", got, err)
	}
}

func TestCheckFastPathDoesNotAllocate(t *testing.T) {
	v := mustNew(t, WithNormalize("uuid", "ids"), WithTolerance(0.5, 0), WithIgnore("**.timestamp"), WithRules(
		Rule{Scope: Scope{Method: "tools/list"}, Mode: Partial, RequiredFields: []string{"result.tools[*].name"}},
		Rule{Scope: Scope{Kind: "error"}, OnFailure: OnFailureWarn},
		Rule{Scope: Scope{Seq: &SeqRange{7, 7}}, Mode: Schema},
		Rule{Scope: Scope{Method: "tools/call", Session: "s1"}, Mode: Structural, OnFailure: OnFailureRetry},
	))
	e, a := []byte(benchExpected), []byte(benchSameOtherID)
	s := Subject{Seq: 3, Session: "s1", Method: "tools/call", Kind: "request"}
	allocs := testing.AllocsPerRun(100, func() {
		vd, err := v.Check(s, e, a)
		if err != nil || vd.Failed() || vd.Mode != Structural || vd.OnFailure != OnFailureRetry {
			t.Fatalf("got %+v, %v", vd, err)
		}
	})
	if allocs != 0 {
		t.Errorf("got %v allocations, want 0", allocs)
	}
}

// CheckSame gives Check's verdict for an answer that is the recorded one
// with only its id changed, in every mode and under rules, without
// comparing the two in the modes that compare them.
func TestCheckSameAsCheck(t *testing.T) {
	answers := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","description":"Echo","inputSchema":{"type":"object"}}]}}`,
		`{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"{\"temp\":18}"}],"isError":false}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no such method"}}`,
		`{"id":3,"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","result":{"a":1},"id":12}`,
	}
	liveID := func(s string) string { // the same answer with another id
		for _, id := range []string{`"id":1,`, `"id":"a",`, `"id":7,`, `"id":3,`, `"id":12}`} {
			if strings.Contains(s, id) {
				return strings.Replace(s, id, strings.Replace(id, id[5:len(id)-1], "100042", 1), 1)
			}
		}
		t.Fatalf("no id in %s", s)
		return ""
	}
	validators := map[string][]Option{
		"exact":      {WithMode(Exact)},
		"structural": {WithMode(Structural)},
		"schema":     {WithMode(Schema)},
		"partial":    {WithRules(Rule{Scope: Scope{Always: true}, Mode: Partial, RequiredFields: []string{"result.tools[*].name", "id"}})},
		"warn rule":  {WithRules(Rule{Scope: Scope{Always: true}, Mode: Exact, OnFailure: OnFailureRetry, MaxRetries: 2})},
		"disabled":   {WithMode(Exact), WithDisabled()},
	}
	for name, opts := range validators {
		v := mustNew(t, opts...)
		for _, exp := range answers {
			act := liveID(exp)
			s := Subject{Method: "tools/call", Kind: "request"}
			want, werr := v.Check(s, []byte(exp), []byte(act))
			got, gerr := v.CheckSame(s, []byte(exp), []byte(act))
			if fmt.Sprint(got, gerr) != fmt.Sprint(want, werr) {
				t.Errorf("%s, %s: CheckSame gave %+v, %v; Check %+v, %v", name, act, got, gerr, want, werr)
			}
		}
	}
}
