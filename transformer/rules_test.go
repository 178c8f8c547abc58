package transformer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/replayctl/replayctl/internal/match"
)

var (
	testEnv = map[string]string{"AUTH_TOKEN": "s3cr3t-tok", "CITY": "Lyon", "EMPTY": "", "DOLLAR": "a$1b"}
	testNow = time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("CET", 3600))
)

func compile(t testing.TB, specs ...RuleSpec) *Rules {
	t.Helper()
	r, err := Compile(specs,
		WithEnv(func(k string) (string, bool) { v, ok := testEnv[k]; return v, ok }),
		WithClock(func() time.Time { return testNow }),
		WithUUID(func() string { return "00000000-0000-4000-8000-000000000001" }))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	callMsg   = Msg{Seq: 7, Session: "s1", Dir: "c2s", Kind: "request", Method: "tools/call", ID: "7", Raw: []byte(odd)}
	notifyMsg = Msg{Seq: 12, Session: "s2", Dir: "c2s", Kind: "notification", Method: "notifications/initialized",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)}
	answerMsg = Msg{Seq: 3, Session: "s1", Dir: "c2s", Kind: "response", ID: "1", Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}
)

func seq(n int64) *int64 { return &n }

func TestConditions(t *testing.T) {
	drop := Action{Drop: true}
	tests := []struct {
		name string
		cond Condition
		msgs []Msg
		want []bool
	}{
		{"always", Condition{Always: true}, []Msg{callMsg, notifyMsg}, []bool{true, true}},
		{"method", Condition{Method: "tools/call"}, []Msg{callMsg, notifyMsg}, []bool{true, false}},
		{"another method", Condition{Method: "notifications/initialized"}, []Msg{callMsg, notifyMsg}, []bool{false, true}},
		{"kind", Condition{Kind: "notification"}, []Msg{callMsg, notifyMsg, answerMsg}, []bool{false, true, false}},
		{"seq", Condition{Seq: seq(7)}, []Msg{callMsg, notifyMsg}, []bool{true, false}},
		{"seq 0", Condition{Seq: seq(0)}, []Msg{callMsg, {Seq: 0}}, []bool{false, true}},
		{"seq_range, inclusive", Condition{SeqRange: &SeqRange{3, 7}}, []Msg{answerMsg, callMsg, notifyMsg}, []bool{true, true, false}},
		{"session", Condition{Session: "s2"}, []Msg{callMsg, notifyMsg}, []bool{false, true}},
		{"when", Condition{When: `params.arguments.city == "Paris"`}, []Msg{callMsg, notifyMsg}, []bool{true, false}},
		{"when, a method", Condition{When: "tools/call"}, []Msg{callMsg, notifyMsg}, []bool{true, false}},
		{"fields are ANDed", Condition{Kind: "request", Session: "s1", When: "seq > 5"}, []Msg{callMsg, answerMsg, notifyMsg}, []bool{true, false, false}},
		{"always ANDed with a field", Condition{Always: true, Session: "s2"}, []Msg{callMsg, notifyMsg}, []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := compile(t, RuleSpec{Name: "r", Condition: tt.cond, Action: drop})
			for i, m := range tt.msgs {
				o, err := r.Apply(m)
				if err != nil {
					t.Fatal(err)
				}
				if o.Drop != tt.want[i] || (len(o.Applied) == 1) != tt.want[i] {
					t.Errorf("seq %d: got drop %v applied %v, want %v", m.Seq, o.Drop, o.Applied, tt.want[i])
				}
			}
		})
	}
}

func TestActions(t *testing.T) {
	always := Condition{Always: true}
	tests := []struct {
		name   string
		action Action
		msg    Msg
		check  func(t *testing.T, o Outcome)
	}{
		{"set_param keeps every other byte", Action{SetParam: &SetValue{Path: "$.params.arguments.city", Value: "Lyon"}}, callMsg,
			wantOut(strings.Replace(odd, `"Paris"`, `"Lyon"`, 1))},
		{"set_param relative to params", Action{SetParam: &SetValue{Path: "arguments.city", Value: 42}}, callMsg,
			wantOut(strings.Replace(odd, `"Paris"`, `42`, 1))},
		{"set_param adds a member", Action{SetParam: &SetValue{Path: "params.arguments.units", Value: map[string]any{"t": "C", "a": []any{1, nil, true}}}}, callMsg,
			wantOut(strings.Replace(odd, `[1, 2,3] }`, `[1, 2,3],"units":{"a":[1,null,true],"t":"C"} }`, 1))},
		{"set_param creates params", Action{SetParam: &SetValue{Path: "$.params.x", Value: "<&>"}}, notifyMsg,
			wantOut(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":"<&>"}}`)},
		{"set_param from the environment", Action{SetParam: &SetValue{Path: "arguments.city", Value: "${env.CITY}!"}}, callMsg,
			wantOut(strings.Replace(odd, `"Paris"`, `"Lyon!"`, 1))},
		{"remove_param", Action{RemoveParam: &Remove{Path: "params.arguments.city"}}, callMsg,
			wantOut(strings.Replace(odd, `"city" : "Paris" , `, ``, 1))},
		{"remove_param of nothing", Action{RemoveParam: &Remove{Path: "params.nope"}}, callMsg, wantOut("")},
		{"replace_param", Action{ReplaceParam: &Replace{Path: "$.params.arguments.city", Pattern: `^(P)aris$`, Replacement: "${1}rague"}}, callMsg,
			wantOut(strings.Replace(odd, `"Paris"`, `"Prague"`, 1))},
		{"replace_param, env value taken literally", Action{ReplaceParam: &Replace{Path: "arguments.city", Pattern: `a`, Replacement: "${env.DOLLAR}"}}, callMsg,
			wantOut(strings.Replace(odd, `"Paris"`, `"Pa$1bris"`, 1))},
		{"replace_param, no match", Action{ReplaceParam: &Replace{Path: "arguments.city", Pattern: `x`, Replacement: "y"}}, callMsg, wantOut("")},
		{"replace_param, missing", Action{ReplaceParam: &Replace{Path: "arguments.nope", Pattern: `x`, Replacement: "y"}}, callMsg, wantOut("")},
		{"set_result", Action{SetResult: &SetValue{Path: "$.result.content[0].text", Value: "sunny"}}, callMsg,
			func(t *testing.T, o Outcome) {
				if len(o.ExpectEdits) != 1 || o.Out != nil {
					t.Fatalf("got edits %v, out %q; want one edit, no out", o.ExpectEdits, o.Out)
				}
				got, err := ApplyEdits([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text", "text":"rain"}]}}`), o.ExpectEdits)
				if want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text", "text":"sunny"}]}}`; err != nil || string(got) != want {
					t.Errorf("got %s, %v; want %s", got, err, want)
				}
			}},
		{"set_result relative to result", Action{SetResult: &SetValue{Path: "isError", Value: false}}, callMsg,
			func(t *testing.T, o Outcome) {
				if len(o.ExpectEdits) != 1 || o.ExpectEdits[0].Path.String() != "$.result.isError" || string(o.ExpectEdits[0].Value) != "false" {
					t.Errorf("got %v, want set $.result.isError false", o.ExpectEdits)
				}
			}},
		{"inject_error", Action{InjectError: &InjectError{Code: -32603, Message: "boom at {{seq}}"}}, callMsg,
			func(t *testing.T, o Outcome) {
				if want := `{"code":-32603,"message":"boom at 7"}`; string(o.Error) != want {
					t.Errorf("got %s, want %s", o.Error, want)
				}
			}},
		{"inject_error with data", Action{InjectError: &InjectError{Code: 7, Message: "m", Data: map[string]any{"why": "x"}}}, callMsg,
			func(t *testing.T, o Outcome) {
				if want := `{"code":7,"message":"m","data":{"why":"x"}}`; string(o.Error) != want {
					t.Errorf("got %s, want %s", o.Error, want)
				}
			}},
		{"rename_method", Action{RenameMethod: &Rename{To: "tools/call2"}}, callMsg,
			wantOut(strings.Replace(odd, `"tools/call"`, `"tools/call2"`, 1))},
		{"add_delay", Action{AddDelay: 50 * time.Millisecond}, callMsg,
			func(t *testing.T, o Outcome) {
				if o.Delay != 50*time.Millisecond || o.Out != nil {
					t.Errorf("got delay %s, out %q; want 50ms, unchanged", o.Delay, o.Out)
				}
			}},
		{"regenerate_id", Action{RegenerateID: true}, callMsg,
			func(t *testing.T, o Outcome) {
				if !o.RegenerateID || o.Out != nil {
					t.Errorf("got %v, out %q; want RegenerateID, unchanged", o.RegenerateID, o.Out)
				}
			}},
		{"drop", Action{Drop: true}, callMsg,
			func(t *testing.T, o Outcome) {
				if !o.Drop {
					t.Errorf("got Drop false, want true")
				}
			}},
		{"several actions in field order", Action{
			SetParam:     &SetValue{Path: "arguments.city", Value: "Lyon"},
			ReplaceParam: &Replace{Path: "arguments.city", Pattern: "L", Replacement: "N"},
			RenameMethod: &Rename{To: "x"},
			AddDelay:     time.Second,
		}, callMsg, wantOut(strings.NewReplacer(`"Paris"`, `"Nyon"`, `"tools/call"`, `"x"`).Replace(odd))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := compile(t, RuleSpec{Condition: always, Action: tt.action})
			o, err := r.Apply(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(o.Applied, []string{"#1"}) {
				t.Errorf("got applied %v, want [#1]", o.Applied)
			}
			tt.check(t, o)
		})
	}
}

// wantOut checks Outcome.Out; "" wants nil (unchanged).
func wantOut(want string) func(*testing.T, Outcome) {
	return func(t *testing.T, o Outcome) {
		t.Helper()
		if want == "" {
			if o.Out != nil {
				t.Errorf("got %q, want the message unchanged (nil)", o.Out)
			}
			return
		}
		if string(o.Out) != want {
			t.Errorf("got  %q\nwant %q", o.Out, want)
		}
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name string
		t    RuleSpec
		msg  Msg
		want string
	}{
		{"when fails at run time", RuleSpec{Name: "bad", Line: 4, Condition: Condition{When: "params.arguments.days[9] == 1"}, Action: Action{Drop: true}},
			callMsg, `rule "bad" (line 4) at seq 7: condition`},
		{"replace_param on a number", RuleSpec{Condition: Condition{Always: true}, Action: Action{ReplaceParam: &Replace{Path: "arguments.days", Pattern: "x"}}},
			callMsg, "rule #1 at seq 7: replace_param: $.params.arguments.days is an array, not a string"},
		{"set_param through a string", RuleSpec{Condition: Condition{Always: true}, Action: Action{SetParam: &SetValue{Path: "name.x", Value: 1}}},
			callMsg, "$.params.name is a string, not an object"},
		{"rename_method on an answer", RuleSpec{Condition: Condition{Always: true}, Action: Action{RenameMethod: &Rename{To: "x"}}},
			answerMsg, "rule #1 at seq 3: rename_method: the message has no method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := compile(t, tt.t).Apply(tt.msg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %+v, %v; want an error containing %q", o, err, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	always := Condition{Always: true}
	drop := Action{Drop: true}
	tests := []struct {
		name string
		t    RuleSpec
		want string
	}{
		{"env unset", RuleSpec{Name: "fresh token", Line: 12, Condition: always, Action: Action{SetParam: &SetValue{Path: "arguments.token", Value: "Bearer ${env.NOPE}"}}},
			`rule "fresh token" (line 12): ${env.NOPE} is not set: export it or remove the rule`},
		{"env unset, deep in a value", RuleSpec{Condition: always, Action: Action{SetResult: &SetValue{Path: "x", Value: []any{map[string]any{"k": "${env.NOPE}"}}}}},
			`rule #1: ${env.NOPE} is not set`},
		{"env unset in an error message", RuleSpec{Condition: always, Action: Action{InjectError: &InjectError{Code: 1, Message: "${env.NOPE}"}}},
			`${env.NOPE} is not set`},
		{"env not closed", RuleSpec{Condition: always, Action: Action{SetParam: &SetValue{Path: "a", Value: "${env.X"}}}, "not closed"},
		{"env bad name", RuleSpec{Condition: always, Action: Action{SetParam: &SetValue{Path: "a", Value: "${env.A-B}"}}}, "not a variable name"},
		{"unknown template", RuleSpec{Condition: always, Action: Action{SetParam: &SetValue{Path: "a", Value: "{{uid}}"}}}, "unknown template {{uid}}"},
		{"empty condition", RuleSpec{Name: "x", Line: 3, Action: drop}, `rule "x" (line 3): condition: empty`},
		{"bad kind", RuleSpec{Condition: Condition{Kind: "req"}, Action: drop}, `kind "req" is not one of`},
		{"negative seq", RuleSpec{Condition: Condition{Seq: seq(-1)}, Action: drop}, "0 or more"},
		{"bad seq_range", RuleSpec{Condition: Condition{SeqRange: &SeqRange{5, 2}}, Action: drop}, "seq_range [5 2]"},
		{"bad when", RuleSpec{Condition: Condition{When: "method =="}, Action: drop}, "when: match: bad condition"},
		{"no action", RuleSpec{Condition: always}, "action: none"},
		{"bad path", RuleSpec{Condition: always, Action: Action{SetParam: &SetValue{Path: "a..b"}}}, "set_param: transformer: bad path"},
		{"missing path", RuleSpec{Condition: always, Action: Action{RemoveParam: &Remove{}}}, "remove_param: path is missing"},
		{"root path", RuleSpec{Condition: always, Action: Action{SetResult: &SetValue{Path: "$"}}}, "whole message"},
		{"bad pattern", RuleSpec{Condition: always, Action: Action{ReplaceParam: &Replace{Path: "a", Pattern: "("}}}, "replace_param: pattern"},
		{"empty pattern", RuleSpec{Condition: always, Action: Action{ReplaceParam: &Replace{Path: "a"}}}, "pattern is empty"},
		{"error without code", RuleSpec{Condition: always, Action: Action{InjectError: &InjectError{Message: "m"}}}, "code is missing"},
		{"error without message", RuleSpec{Condition: always, Action: Action{InjectError: &InjectError{Code: 1}}}, "message is missing"},
		{"rename to nothing", RuleSpec{Condition: always, Action: Action{RenameMethod: &Rename{}}}, "to is missing"},
		{"negative delay", RuleSpec{Condition: always, Action: Action{AddDelay: -time.Second}}, "negative"},
		{"a value JSON cannot hold", RuleSpec{Condition: always, Action: Action{SetParam: &SetValue{Path: "a", Value: func() {}}}}, "cannot be written as JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile([]RuleSpec{{Condition: always, Action: drop}, tt.t},
				WithEnv(func(k string) (string, bool) { v, ok := testEnv[k]; return v, ok }))
			var re *RuleError
			if !errors.As(err, &re) || re.Index != 1 || !strings.Contains(err.Error(), strings.Replace(tt.want, "#1", "#2", 1)) {
				t.Fatalf("got %v, want a *RuleError for index 1 containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error shows a secret: %v", err)
			}
		})
	}
	var re *RuleError
	_, err := Compile([]RuleSpec{{Condition: Condition{When: "("}, Action: drop}})
	if !errors.As(err, &re) || !errors.Is(err, match.ErrBadCondition) {
		t.Errorf("got %v, want a *RuleError wrapping match.ErrBadCondition", err)
	}
}

func TestTemplates(t *testing.T) {
	tests := []struct {
		value any
		want  string
	}{
		{"{{uuid}}", `"00000000-0000-4000-8000-000000000001"`},
		{"{{now}}", `"2026-03-04T04:06:07Z"`},
		{"{{seq}}/{{ session }}", `"7/s\"1"`},
		{"id-{{uuid}}-{{uuid}}", `"id-00000000-0000-4000-8000-000000000001-00000000-0000-4000-8000-000000000001"`},
		{map[string]any{"{{session}}": []any{"{{seq}}", 1.5}}, `{"s\"1":["7",1.5]}`},
		{"{{ not a template }} {{", `"{{ not a template }} {{"`},
		{"${env.AUTH_TOKEN}{{seq}}", `"s3cr3t-tok7"`},
		{"${env.EMPTY}", `""`},
		{map[any]any{1: "x"}, `{"1":"x"}`},
		{nil, `null`},
	}
	m := callMsg
	m.Session = `s"1`
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			r := compile(t, RuleSpec{Condition: Condition{Always: true},
				Action: Action{SetParam: &SetValue{Path: "x", Value: tt.value}}})
			o, err := r.Apply(m)
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := GetPath(o.Out, MustParsePath("params.x"))
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestUUIDPerMessage(t *testing.T) {
	r, err := Compile([]RuleSpec{{Condition: Condition{Always: true},
		Action: Action{SetParam: &SetValue{Path: "x", Value: "{{uuid}}"}}}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 100 {
		o, err := r.Apply(callMsg)
		if err != nil {
			t.Fatal(err)
		}
		v, _, _ := GetPath(o.Out, MustParsePath("params.x"))
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			t.Fatalf("got %s, want a JSON string: %v", v, err)
		}
		u, err := uuid.Parse(s)
		if err != nil || u.String() != s || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("got %s, want a version 4 UUID (RFC 9562 variant) in canonical form (parse error: %v)", v, err)
		}
		seen[s] = true
	}
	if len(seen) != 100 {
		t.Errorf("got %d distinct UUIDs in 100 messages, want 100", len(seen))
	}
}

func TestSecrets(t *testing.T) {
	r := compile(t,
		RuleSpec{Condition: Condition{Always: true}, Action: Action{
			SetParam:    &SetValue{Path: "token", Value: "Bearer ${env.AUTH_TOKEN}"},
			InjectError: &InjectError{Code: 1, Message: "${env.CITY}", Data: "${env.AUTH_TOKEN}"},
		}},
		RuleSpec{Condition: Condition{Always: true}, Action: Action{
			ReplaceParam: &Replace{Path: "a", Pattern: "x", Replacement: "${env.DOLLAR}${env.EMPTY}"},
		}},
	)
	got := r.Secrets()
	slices.Sort(got)
	if want := []string{"Lyon", "a$1b", "s3cr3t-tok"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got[0] = "changed"
	if r.Secrets()[0] == "changed" {
		t.Errorf("Secrets returns its own slice; want a copy")
	}
	if len(compile(t).Secrets()) != 0 || compile(t).Len() != 0 {
		t.Errorf("no rules: want no secrets")
	}
}

// TestRulesInOrder: each rule edits what the one before left; conditions
// see the recorded message; a drop ends the list; Applied names them.
func TestRulesInOrder(t *testing.T) {
	r := compile(t,
		RuleSpec{Name: "rename", Condition: Condition{Method: "tools/call"}, Action: Action{RenameMethod: &Rename{To: "tools/other"}, AddDelay: time.Millisecond}},
		RuleSpec{Condition: Condition{Method: "tools/call"}, Action: Action{SetParam: &SetValue{Path: "name", Value: "w2"}, AddDelay: 2 * time.Millisecond}},
		RuleSpec{Name: "never", Condition: Condition{Method: "tools/other"}, Action: Action{Drop: true}},
		RuleSpec{Name: "stop", Condition: Condition{Seq: seq(7)}, Action: Action{Drop: true}},
		RuleSpec{Name: "after drop", Condition: Condition{Always: true}, Action: Action{RegenerateID: true}},
	)
	o, err := r.Apply(callMsg)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(`"tools/call"`, `"tools/other"`, `"weather"`, `"w2"`).Replace(odd)
	if string(o.Out) != want || o.Delay != 3*time.Millisecond || !o.Drop || o.RegenerateID {
		t.Errorf("got out %q delay %s drop %v regen %v; want %q, 3ms, true, false", o.Out, o.Delay, o.Drop, o.RegenerateID, want)
	}
	if wantApplied := []string{"rename", "#2", "stop"}; !slices.Equal(o.Applied, wantApplied) {
		t.Errorf("got applied %v, want %v", o.Applied, wantApplied)
	}
	if string(callMsg.Raw) != odd {
		t.Errorf("Apply changed the message's own bytes")
	}
}

func TestApplyEdits(t *testing.T) {
	edits := []Edit{
		{Path: MustParsePath("result.a"), Value: []byte(`1`)},
		{Path: MustParsePath("result.b"), Remove: true},
	}
	got, err := ApplyEdits([]byte(`{"result":{"b":2, "c":3}}`), edits)
	if want := `{"result":{"c":3,"a":1}}`; err != nil || string(got) != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	_, err = ApplyEdits([]byte(`{"result":[]}`), edits)
	if err == nil || !strings.Contains(err.Error(), "edit 1 (set $.result.a)") {
		t.Errorf("got %v, want an error naming edit 1", err)
	}
	raw := []byte(`{}`)
	if got, err := ApplyEdits(raw, nil); err != nil || &got[0] != &raw[0] {
		t.Errorf("no edits: got %s, %v; want raw itself", got, err)
	}
}

// TestConcurrentApply: one Rules serves many goroutines (run with -race).
func TestConcurrentApply(t *testing.T) {
	r := compile(t, RuleSpec{Condition: Condition{When: `params.arguments.city == "Paris"`},
		Action: Action{SetParam: &SetValue{Path: "arguments.city", Value: "{{session}}-{{seq}}"}}})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Go(func() {
			m := callMsg
			for i := range 200 {
				m.Seq = int64(g*1000 + i)
				o, err := r.Apply(m)
				want := fmt.Sprintf(`"s1-%d"`, m.Seq)
				if got, _, _ := GetPath(o.Out, MustParsePath("params.arguments.city")); err != nil || string(got) != want {
					errs[g] = fmt.Errorf("seq %d: got %s, %v; want %s", m.Seq, got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
