package replay

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
	"github.com/replayctl/replayctl/validator"
)

func seq(n int64) *int64 { return &n }

// zeroFields lists the fields of v (a struct, through pointers and into
// nested structs) that are zero, by their path: what a translation
// forgot to fill.
func zeroFields(v reflect.Value, at string) []string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return []string{at}
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		if v.IsZero() {
			return []string{at}
		}
		return nil
	}
	var out []string
	for i := range v.NumField() {
		out = append(out, zeroFields(v.Field(i), at+"."+v.Type().Field(i).Name)...)
	}
	return out
}

// TestTranslationsFillEveryField translates config values with every key
// set and checks that every field of the result is set: a key the
// translation drops would leave one zero.
func TestTranslationsFillEveryField(t *testing.T) {
	vr, err := validatorRule(config.ValidationRule{
		Scope:          config.Condition{Always: true, MethodEquals: "m", Kind: "error", SeqRange: []int64{1, 2}, Session: "s", When: "seq > 1"},
		Mode:           "partial",
		RequiredFields: []string{"result.a"},
		IgnoreFields:   []string{"result.b"},
		OnFailure:      "retry",
		MaxRetries:     2,
		Line:           7,
	})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := transformRule(config.Transformation{
		Name: "all",
		Condition: config.Condition{Always: true, Method: "m", MethodEquals: "m", Kind: "request", Seq: seq(3),
			SeqRange: []int64{1, 5}, Session: "s", When: "seq > 1"},
		Action: config.Action{
			SetParam:     &config.SetValue{Path: "a", Value: 1},
			RemoveParam:  &config.PathOnly{Path: "b"},
			ReplaceParam: &config.Replace{Path: "c", Pattern: "x", Replacement: "y"},
			SetResult:    &config.SetValue{Path: "d", Value: "v"},
			InjectError:  &config.InjectError{Code: 1, Message: "m", Data: "d"},
			RenameMethod: &config.Rename{To: "n"},
			AddDelay:     config.Duration(time.Millisecond),
			RegenerateID: true,
			Drop:         true,
		},
		Line: 4,
	})
	if err != nil {
		t.Fatal(err)
	}
	targets := chaosTargets([]config.ChaosTarget{{Method: "m", Nth: 2, Fault: "drop", Probability: 0.5}})
	faults := chaosFaultsFromReport([]report.Fault{{Seq: 1, Session: "s", Kind: "drop", Detail: "d"}})
	for _, tt := range []struct {
		name string
		v    any
	}{
		{"validator.Rule", vr}, {"transformer.RuleSpec", ts}, {"chaos.Target", targets[0]}, {"chaos.Injected", faults[0]},
	} {
		if zero := zeroFields(reflect.ValueOf(tt.v), tt.name); len(zero) > 0 {
			t.Errorf("got %+v with %s unset, want every field set", tt.v, strings.Join(zero, ", "))
		}
	}
}

// TestValidatorRule: what each key becomes.
func TestValidatorRule(t *testing.T) {
	tests := []struct {
		name string
		in   config.ValidationRule
		want validator.Rule
	}{
		{"method", config.ValidationRule{Scope: config.Condition{Method: "a"}, Mode: "exact"},
			validator.Rule{Scope: validator.Scope{Method: "a"}, Mode: validator.Exact}},
		{"method_equals", config.ValidationRule{Scope: config.Condition{MethodEquals: "a"}},
			validator.Rule{Scope: validator.Scope{Method: "a"}}},
		{"both methods, the same", config.ValidationRule{Scope: config.Condition{Method: "a", MethodEquals: "a"}},
			validator.Rule{Scope: validator.Scope{Method: "a"}}},
		{"seq", config.ValidationRule{Scope: config.Condition{Seq: seq(5)}},
			validator.Rule{Scope: validator.Scope{Seq: &validator.SeqRange{From: 5, To: 5}}}},
		{"seq_range", config.ValidationRule{Scope: config.Condition{SeqRange: []int64{10, 20}}, Line: 3},
			validator.Rule{Scope: validator.Scope{Seq: &validator.SeqRange{From: 10, To: 20}}, Line: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := validatorRule(tt.in)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestValidatorFromConfig(t *testing.T) {
	c := config.Validation{
		Mode:         "structural",
		IgnoreFields: []string{"**.timestamp"},
		Normalize:    []config.Normalizer{{Name: "uuid"}},
		Tolerance:    config.Tolerance{Numeric: 0.5},
		Rules: []config.ValidationRule{{
			Scope: config.Condition{MethodEquals: "tools/list"}, Mode: "partial",
			RequiredFields: []string{"result.tools[*].name"}, OnFailure: "warn", Line: 12,
		}, {
			Scope: config.Condition{SeqRange: []int64{10, 20}}, OnFailure: "retry",
		}, {
			Scope: config.Condition{Method: "exact"}, Mode: "exact",
		}},
	}
	v, err := validatorRules(c, []string{"result.extra"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, exp, act string
		seq                    int64
		mode                   validator.Mode
		onFailure              string
		want                   []string // the differences, "kind path"
	}{
		{"structural default", "ping", `{"result":{"a":1}}`, `{"result":{"a":2}}`, 0, validator.Structural, "error", nil},
		{"structural type", "ping", `{"result":{"a":1}}`, `{"result":{"a":"1"}}`, 0, validator.Structural, "error", []string{"type result.a"}},
		{"ignored paths", "exact", `{"result":{"a":1,"timestamp":"x"}}`, `{"result":{"a":1,"timestamp":3,"extra":1}}`, 0, validator.Exact, "error", nil},
		{"normaliser", "exact", `{"result":{"id":"0b8a3f0e-5a4c-4d2b-9e4f-1c2d3e4f5a6b"}}`, `{"result":{"id":"f47ac10b-58cc-4372-a567-0e02b2c3d479"}}`, 0, validator.Exact, "error", nil},
		{"within tolerance", "exact", `{"result":{"n":1}}`, `{"result":{"n":1.4}}`, 0, validator.Exact, "error", nil},
		{"beyond tolerance", "exact", `{"result":{"n":1}}`, `{"result":{"n":2}}`, 0, validator.Exact, "error", []string{"changed result.n"}},
		{"rule by method_equals", "tools/list", `{"result":{"tools":[{"name":"a"}]}}`, `{"result":{"tools":[{"name":"b"}]}}`, 0, validator.Partial, "warn", []string{"changed result.tools[0].name"}},
		{"rule by seq_range", "ping", `{"result":{}}`, `{"result":{}}`, 15, validator.Structural, "retry", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Check(validator.Subject{Method: tt.method, Seq: tt.seq}, []byte(tt.exp), []byte(tt.act))
			if err != nil {
				t.Fatal(err)
			}
			var diffs []string
			for _, d := range got.Diffs {
				diffs = append(diffs, string(d.Kind)+" "+d.Path)
			}
			if got.Mode != tt.mode || got.OnFailure != tt.onFailure || !reflect.DeepEqual(diffs, tt.want) {
				t.Errorf("got mode %s, on_failure %s, differences %q; want %s, %s, %q", got.Mode, got.OnFailure, diffs, tt.mode, tt.onFailure, tt.want)
			}
		})
	}

	off := false
	v, err = validatorRules(config.Validation{Enabled: &off}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := v.Check(validator.Subject{}, []byte(`{"result":1}`), []byte(`{"result":2}`)); err != nil || got.Failed() {
		t.Errorf("enabled: false: got %+v, %v; want no differences", got, err)
	}
}

// TestValidatorConfigErrors: the errors name the key, or the rule and
// its line, as they did when the validator read the config itself.
func TestValidatorConfigErrors(t *testing.T) {
	rule := func(r config.ValidationRule) config.Validation {
		r.Line = 14
		return config.Validation{Rules: []config.ValidationRule{{Scope: config.Condition{Always: true}}, r}}
	}
	always := config.Condition{Always: true}
	tests := []struct {
		name string
		c    config.Validation
		want []string // substrings of the error
	}{
		{"mode", config.Validation{Mode: "exakt"}, []string{"validation.mode", `"exakt"`, "structural"}},
		{"normaliser", config.Validation{Normalize: []config.Normalizer{{Name: "uid"}}}, []string{"validation.normalize", `"uid"`, "uuid, timestamp"}},
		{"tolerance", config.Validation{Tolerance: config.Tolerance{Relative: -1}}, []string{"validation.tolerance", "-1"}},
		{"ignore", config.Validation{IgnoreFields: []string{"a..b"}}, []string{"validation.ignore_fields", `"a..b"`}},
		{"rule mode", rule(config.ValidationRule{Scope: always, Mode: "loose"}), []string{"validation rule 2 (line 14)", `"loose"`}},
		{"partial without fields", rule(config.ValidationRule{Scope: always, Mode: "partial"}), []string{"line 14", "required_fields"}},
		{"fields without partial", rule(config.ValidationRule{Scope: always, Mode: "exact", RequiredFields: []string{"a"}}), []string{"line 14", "only apply in mode partial"}},
		{"required path", rule(config.ValidationRule{Scope: always, RequiredFields: []string{"a["}}), []string{"line 14", "required_fields", `"a["`}},
		{"required root", rule(config.ValidationRule{Scope: always, RequiredFields: []string{"$"}}), []string{"line 14", "whole message"}},
		{"rule ignore", rule(config.ValidationRule{Scope: always, IgnoreFields: []string{"**x"}}), []string{"line 14", "ignore_fields"}},
		{"on_failure", rule(config.ValidationRule{Scope: always, OnFailure: "panic"}), []string{"line 14", `"panic"`, "ignore, warn"}},
		{"max_retries", rule(config.ValidationRule{Scope: always, MaxRetries: -1}), []string{"line 14", "negative"}},
		{"empty scope", rule(config.ValidationRule{}), []string{"line 14", "always: true"}},
		{"kind", rule(config.ValidationRule{Scope: config.Condition{Kind: "answer"}}), []string{"line 14", `"answer"`}},
		{"seq and range", rule(config.ValidationRule{Scope: config.Condition{Seq: seq(1), SeqRange: []int64{1, 2}}}), []string{"validation rule 2 (line 14)", "seq_range"}},
		{"bad range", rule(config.ValidationRule{Scope: config.Condition{SeqRange: []int64{3, 2}}}), []string{"line 14", "seq_range [3 2]", "from <= to"}},
		{"short range", rule(config.ValidationRule{Scope: config.Condition{SeqRange: []int64{3}}}), []string{"validation rule 2 (line 14)", "seq_range [3]", "from <= to"}},
		{"two methods", rule(config.ValidationRule{Scope: config.Condition{Method: "a", MethodEquals: "b"}}), []string{"validation rule 2 (line 14)", "method_equals"}},
		{"when", rule(config.ValidationRule{Scope: config.Condition{When: "seq >"}}), []string{"line 14", "scope when", `"seq >"`}},
		{"no line", config.Validation{Rules: []config.ValidationRule{{}}}, []string{"validation rule 1:"}},
		{"no line, two methods", config.Validation{Rules: []config.ValidationRule{{Scope: config.Condition{Method: "a", MethodEquals: "b"}}}}, []string{"validation rule 1:"}},
		{"the first in file order", config.Validation{Rules: []config.ValidationRule{{Scope: always, Mode: "loose", Line: 3}, {Scope: config.Condition{Method: "a", MethodEquals: "b"}, Line: 5}}},
			[]string{"validation rule 1 (line 3)", `"loose"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := validatorRules(tt.c, nil)
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tt.want)
			}
			if !errors.Is(err, validator.ErrConfig) && !errors.Is(err, validator.ErrPattern) {
				t.Errorf("got %v, want it to wrap ErrConfig or ErrPattern", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

var (
	testEnv  = transformer.WithEnv(func(k string) (string, bool) { return "v-" + k, k != "NOPE" })
	callMsg  = transformer.Msg{Seq: 7, Session: "s1", Dir: "c2s", Kind: "request", Method: "tools/call", ID: "7", Raw: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Paris","debug":true}}}`)}
	otherMsg = transformer.Msg{Seq: 12, Session: "s2", Dir: "c2s", Kind: "notification", Method: "notifications/initialized", Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)}
)

// TestTransformConditions: each condition key selects what it did when
// the transformer read the config itself.
func TestTransformConditions(t *testing.T) {
	tests := []struct {
		name string
		cond config.Condition
		want []bool // callMsg, otherMsg
	}{
		{"always", config.Condition{Always: true}, []bool{true, true}},
		{"method_equals", config.Condition{MethodEquals: "tools/call"}, []bool{true, false}},
		{"method", config.Condition{Method: "notifications/initialized"}, []bool{false, true}},
		{"method and method_equals agreeing", config.Condition{Method: "tools/call", MethodEquals: "tools/call"}, []bool{true, false}},
		{"kind", config.Condition{Kind: "notification"}, []bool{false, true}},
		{"seq", config.Condition{Seq: seq(7)}, []bool{true, false}},
		{"seq_range, inclusive", config.Condition{SeqRange: []int64{3, 7}}, []bool{true, false}},
		{"seq and seq_range, ANDed", config.Condition{Seq: seq(7), SeqRange: []int64{8, 20}}, []bool{false, false}},
		{"session", config.Condition{Session: "s2"}, []bool{false, true}},
		{"when", config.Condition{When: `params.arguments.city == "Paris"`}, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := transformRules([]config.Transformation{{Condition: tt.cond, Action: config.Action{Drop: true}}})
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range []transformer.Msg{callMsg, otherMsg} {
				o, err := r.Apply(m)
				if err != nil || o.Drop != tt.want[i] {
					t.Errorf("seq %d: got drop %v, %v; want %v", m.Seq, o.Drop, err, tt.want[i])
				}
			}
		})
	}
}

// TestTransformActions: every action key of one rule, applied.
func TestTransformActions(t *testing.T) {
	r, err := transformRules([]config.Transformation{{
		Name:      "all",
		Condition: config.Condition{Always: true},
		Action: config.Action{
			SetParam:     &config.SetValue{Path: "arguments.token", Value: "${env.TOKEN}"},
			RemoveParam:  &config.PathOnly{Path: "arguments.debug"},
			ReplaceParam: &config.Replace{Path: "arguments.city", Pattern: "^P(aris)$", Replacement: "L$1"},
			SetResult:    &config.SetValue{Path: "isError", Value: false},
			InjectError:  &config.InjectError{Code: -32603, Message: "at {{seq}}", Data: map[string]any{"k": 1}},
			RenameMethod: &config.Rename{To: "tools/other"},
			AddDelay:     config.Duration(50 * time.Millisecond),
			RegenerateID: true,
		},
	}, {
		Condition: config.Condition{Session: "s2"},
		Action:    config.Action{Drop: true},
	}}, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	o, err := r.Apply(callMsg)
	if err != nil {
		t.Fatal(err)
	}
	wantOut := `{"jsonrpc":"2.0","id":7,"method":"tools/other","params":{"name":"weather","arguments":{"city":"Laris","token":"v-TOKEN"}}}`
	if string(o.Out) != wantOut {
		t.Errorf("got out %s, want %s", o.Out, wantOut)
	}
	if len(o.ExpectEdits) != 1 || o.ExpectEdits[0].Path.String() != "$.result.isError" || string(o.ExpectEdits[0].Value) != "false" {
		t.Errorf("got expect edits %v, want set $.result.isError false", o.ExpectEdits)
	}
	if want := `{"code":-32603,"message":"at 7","data":{"k":1}}`; string(o.Error) != want {
		t.Errorf("got error %s, want %s", o.Error, want)
	}
	if o.Delay != 50*time.Millisecond || !o.RegenerateID || o.Drop || !reflect.DeepEqual(o.Applied, []string{"all"}) {
		t.Errorf("got delay %s, regenerate %v, drop %v, applied %v; want 50ms, true, false, [all]", o.Delay, o.RegenerateID, o.Drop, o.Applied)
	}
	if got := r.Secrets(); !reflect.DeepEqual(got, []string{"v-TOKEN"}) {
		t.Errorf("got secrets %q, want [v-TOKEN]", got)
	}
	if o, err := r.Apply(otherMsg); err != nil || !o.Drop {
		t.Errorf("got %+v, %v; want the second rule to drop", o, err)
	}
}

// TestTransformErrors: *transformer.RuleError naming the rule and its
// line, for what the transformer finds and for what only the config can
// say.
func TestTransformErrors(t *testing.T) {
	drop := config.Action{Drop: true}
	ok := config.Transformation{Condition: config.Condition{Always: true}, Action: drop}
	tests := []struct {
		name  string
		ts    []config.Transformation
		index int
		want  string
	}{
		{"methods differ", []config.Transformation{ok, {Name: "x", Line: 9, Condition: config.Condition{Method: "a", MethodEquals: "b"}, Action: drop}},
			1, `rule "x" (line 9): condition: method "a" and method_equals "b" differ; keep one`},
		{"short seq_range", []config.Transformation{ok, {Line: 9, Condition: config.Condition{SeqRange: []int64{5}}, Action: drop}},
			1, "rule #2 (line 9): condition: seq_range [5]: want [from, to]"},
		{"bad seq_range", []config.Transformation{{Condition: config.Condition{SeqRange: []int64{5, 2}}, Action: drop}},
			0, "rule #1: condition: seq_range [5 2]: want [from, to] with 0 <= from <= to"},
		{"env unset", []config.Transformation{{Name: "fresh token", Line: 12, Condition: config.Condition{Always: true},
			Action: config.Action{SetParam: &config.SetValue{Path: "token", Value: "${env.NOPE}"}}}},
			0, `rule "fresh token" (line 12): ${env.NOPE} is not set`},
		{"negative delay", []config.Transformation{{Condition: config.Condition{Always: true}, Action: config.Action{AddDelay: config.Duration(-time.Second)}}},
			0, "rule #1: add_delay: -1s is negative"},
		{"the first in file order", []config.Transformation{{Line: 3, Condition: config.Condition{Always: true}}, {Line: 5, Condition: config.Condition{Method: "a", MethodEquals: "b"}, Action: drop}},
			0, "rule #1 (line 3): action: none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := transformRules(tt.ts, testEnv)
			var re *transformer.RuleError
			if !errors.As(err, &re) || re.Index != tt.index || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a *RuleError for index %d containing %q", err, tt.index, tt.want)
			}
		})
	}
}

// TestChaosTargets: the config's targets aim faults as chaos.Target does,
// fault names in any spelling ParseKind reads; a bad one is named.
func TestChaosTargets(t *testing.T) {
	targets := chaosTargets([]config.ChaosTarget{
		{Method: "tools/call", Nth: 2, Fault: "Bad_Params"},
		{Method: "tools/list", Fault: "timeout", Probability: 1},
	})
	p, err := chaos.NewPlan(1, nil, targets)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		m    chaos.Msg
		want chaos.Kind
	}{
		{chaos.Msg{Session: "s", Seq: 1, Method: "tools/call", Kind: "request", Nth: 1}, ""},
		{chaos.Msg{Session: "s", Seq: 2, Method: "tools/call", Kind: "request", Nth: 2}, chaos.BadParams},
		{chaos.Msg{Session: "s", Seq: 3, Method: "tools/list", Kind: "request", Nth: 1}, chaos.Timeout},
	} {
		f, _ := p.Decide(tt.m)
		if f.Kind != tt.want {
			t.Errorf("seq %d: got fault %q, want %q", tt.m.Seq, f.Kind, tt.want)
		}
	}
	_, err = chaos.NewPlan(1, nil, chaosTargets([]config.ChaosTarget{{Method: "m", Nth: 1, Fault: "boom"}}))
	if want := `chaos target 1 (method "m", nth 1): fault: unknown fault kind "boom"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}

// TestChaosFaultsFromReport: faults as a JSON report lists them give the
// same faults and mutations again.
func TestChaosFaultsFromReport(t *testing.T) {
	p, err := chaos.NewPlan(7, map[chaos.Kind]float64{chaos.Malformed: 0.5, chaos.Timeout: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []chaos.Fault
	var listed []report.Fault // as the engine writes them
	for s := range int64(20) {
		f, ok := p.Decide(chaos.Msg{Session: "s1", Seq: s, Method: "tools/call", Kind: "request"})
		if !ok {
			continue
		}
		want = append(want, f)
		in := f.Report()
		listed = append(listed, report.Fault{Seq: in.Seq, Session: in.Session, Kind: string(in.Kind), Detail: in.Detail})
	}
	data, err := json.Marshal(listed)
	if err != nil {
		t.Fatal(err)
	}
	var read []report.Fault
	if err := json.Unmarshal(data, &read); err != nil {
		t.Fatal(err)
	}
	again, err := chaos.FromReport(0, chaosFaultsFromReport(read))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		got, ok := again.Decide(chaos.Msg{Session: w.Session, Seq: w.Seq, Method: "tools/call", Kind: "request"})
		if !ok || got.Kind != w.Kind || got.Param != w.Param || got.Detail != w.Detail {
			t.Errorf("seq %d: got %+v, want %+v", w.Seq, got, w)
		}
	}
	_, err = chaos.FromReport(0, chaosFaultsFromReport([]report.Fault{{Seq: 3, Session: "s", Kind: "boom"}}))
	if want := `chaos fault 1 (session "s", seq 3): unknown fault kind "boom"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}

// TestPlanFromReport: --chaos-from takes the seed of the run it repeats,
// refuses a report that left faults out, and warns about a report of
// another tape.
func TestPlanFromReport(t *testing.T) {
	const fault = `{"seq":3,"session":"s1","kind":"drop","detail":"not sent"}`
	tests := []struct {
		name, report, tape string
		seed               int64
		warning, err       string
	}{
		{"same tape", `{"summary":{"run_id":"r1","tape":"dir/a.jsonl"},"chaos":{"seed":42,"faults":[` + fault + `]}}`, "/other/dir/a.jsonl", 42, "", ""},
		{"another tape", `{"summary":{"run_id":"r2","tape":"a.jsonl"},"chaos":{"seed":7,"faults":[` + fault + `]}}`, "b.jsonl", 7, "is of tape a.jsonl, not b.jsonl", ""},
		{"no seed", `{"summary":{"run_id":"r3"},"chaos":{"seed":null,"faults":[` + fault + `]}}`, "b.jsonl", 0, "", ""},
		{"faults left out", `{"summary":{"run_id":"r4"},"chaos":{"seed":9,"faults":[` + fault + `],"faults_omitted":3}}`, "a.jsonl", 0, "", "left out 3: it cannot repeat the run; repeat it with its seed (--seed 9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.json")
			if err := os.WriteFile(path, []byte(tt.report), 0o644); err != nil {
				t.Fatal(err)
			}
			p, _, warning, err := planFromReport(path, tt.tape)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Seed() != tt.seed {
				t.Errorf("seed %d, want %d", p.Seed(), tt.seed)
			}
			if (tt.warning == "") != (warning == "") || !strings.Contains(warning, tt.warning) {
				t.Errorf("warning %q, want %q", warning, tt.warning)
			}
		})
	}
}

// TestExamplesTranslate hands the example config and the examples/ files
// to the translations and the packages that compile them: what
// config.Parse accepts, they must accept too.
func TestExamplesTranslate(t *testing.T) {
	files := map[string]func() (*config.File, error){
		"Example()": func() (*config.File, error) { return config.Parse("example.yaml", []byte(config.Example())) },
	}
	for _, name := range []string{"debug.yaml", "load.yaml", "chaos.yaml"} {
		path := filepath.Join("..", "examples", name)
		files[name] = func() (*config.File, error) { return config.Load(path) }
	}
	for name, load := range files {
		t.Run(name, func(t *testing.T) {
			f, err := load()
			if err != nil {
				t.Fatalf("got %v, want it to parse", err)
			}
			if _, err := validatorRules(f.Validation, nil); err != nil {
				t.Errorf("validatorRules: got %v, want no error", err)
			}
			r, err := transformRules(f.Transformations, testEnv)
			if err != nil {
				t.Errorf("transformRules: got %v, want no error", err)
			} else if r.Len() != len(f.Transformations) {
				t.Errorf("transformRules: got %d rules, want %d", r.Len(), len(f.Transformations))
			}
			faults, err := chaos.ParseFaults(f.Chaos.Faults)
			if err != nil {
				t.Fatalf("chaos.ParseFaults: got %v, want no error", err)
			}
			if _, err := chaos.NewPlan(1, faults, chaosTargets(f.Chaos.Targets)); err != nil {
				t.Errorf("chaos.NewPlan: got %v, want no error", err)
			}
		})
	}
}

// TestHTTPSpare: an HTTP target's sessions keep DefaultHTTPSpare spare
// connections unless WithHTTPSpare says otherwise (0: none).
func TestHTTPSpare(t *testing.T) {
	for _, tc := range []struct {
		target Target
		want   int
	}{
		{HTTP("http://127.0.0.1:1/mcp"), DefaultHTTPSpare},
		{HTTP("http://127.0.0.1:1/mcp").WithHTTPSpare(0), 0},
		{HTTP("http://127.0.0.1:1/mcp").WithHTTPSpare(3), 3},
	} {
		d, err := tc.target.dialer(&settings{}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.(*transport.Auto).Spare; got != tc.want {
			t.Errorf("%v: Spare %d, want %d", tc.target.impl, got, tc.want)
		}
	}
}
