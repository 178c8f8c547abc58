package validator

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/config"
)

func TestRuleScopes(t *testing.T) {
	seq5 := int64(5)
	rules := []config.ValidationRule{
		{Scope: config.Condition{Method: "tools/list"}, Mode: "structural", OnFailure: "warn"},
		{Scope: config.Condition{MethodEquals: "tools/call", Session: "s2"}, Mode: "schema", OnFailure: "retry"},
		{Scope: config.Condition{Seq: &seq5}, OnFailure: "skip"},
		{Scope: config.Condition{SeqRange: []int64{10, 20}}, OnFailure: "ignore", MaxRetries: 2},
		{Scope: config.Condition{Kind: "error"}, Mode: "structural"},
		{Scope: config.Condition{Kind: "notification"}, OnFailure: "warn"},
		{Scope: config.Condition{When: `method == "prompts/get"`}, Mode: "partial", RequiredFields: []string{"result.messages"}},
		{Scope: config.Condition{Always: true, Session: "s9"}, OnFailure: "retry", MaxRetries: 7},
	}
	when := func(src string) (Predicate, error) {
		if src != `method == "prompts/get"` {
			return nil, fmt.Errorf("unknown %q", src)
		}
		return func(s Subject) (bool, error) { return s.Method == "prompts/get", nil }, nil
	}
	v := mustNew(t, WithMode(Exact), WithRules(rules...), WithWhen(when))
	const result, errAnswer = `{"result":{}}`, `{"error":{"code":1,"message":"m"}}`
	tests := []struct {
		name      string
		s         Subject
		expected  string
		mode      Mode
		onFailure string
		retries   int
	}{
		{"no rule", Subject{Method: "ping", Seq: 1, Kind: "request"}, result, Exact, "error", 0},
		{"method", Subject{Method: "tools/list", Seq: 5}, result, Structural, "warn", 0},
		{"first match wins", Subject{Method: "tools/list", Seq: 5, Session: "s9"}, result, Structural, "warn", 0},
		{"method_equals and session", Subject{Method: "tools/call", Session: "s2"}, result, Schema, "retry", DefaultRetries},
		{"session differs", Subject{Method: "tools/call", Session: "s1"}, result, Exact, "error", 0},
		{"seq", Subject{Method: "x", Seq: 5}, result, Exact, "skip", 0},
		{"seq range from", Subject{Method: "x", Seq: 10}, result, Exact, "ignore", 2},
		{"seq range to", Subject{Method: "x", Seq: 20}, result, Exact, "ignore", 2},
		{"seq range after", Subject{Method: "x", Seq: 21}, result, Exact, "error", 0},
		{"kind error by the recorded answer", Subject{Method: "x", Kind: "request"}, errAnswer, Structural, "error", 0},
		{"kind error by the subject", Subject{Method: "x", Kind: "error"}, result, Structural, "error", 0},
		{"kind notification", Subject{Method: "x", Kind: "notification"}, `{"method":"x"}`, Exact, "warn", 0},
		{"when", Subject{Method: "prompts/get"}, result, Partial, "error", 0},
		{"always and session", Subject{Method: "x", Session: "s9"}, result, Exact, "retry", 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Check(tt.s, []byte(tt.expected), []byte(tt.expected))
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode != tt.mode || got.OnFailure != tt.onFailure || got.MaxRetries != tt.retries {
				t.Errorf("got mode %s, on_failure %s, retries %d; want %s, %s, %d",
					got.Mode, got.OnFailure, got.MaxRetries, tt.mode, tt.onFailure, tt.retries)
			}
		})
	}
}

func TestRuleIgnoreFields(t *testing.T) {
	v := mustNew(t, WithIgnore("**.timestamp"), WithRules(config.ValidationRule{
		Scope: config.Condition{Method: "tools/call"}, IgnoreFields: []string{"result.structuredContent"},
	}))
	e := `{"result":{"timestamp":1,"structuredContent":{"a":1},"content":[]}}`
	a := `{"result":{"timestamp":2,"structuredContent":{"a":2},"content":[]}}`
	for _, tt := range []struct {
		method string
		want   []string
	}{
		{"tools/call", nil},
		{"other", []string{`changed result.structuredContent.a 1 2`}},
	} {
		t.Run(tt.method, func(t *testing.T) {
			got, err := v.Check(Subject{Method: tt.method}, []byte(e), []byte(a))
			if err != nil {
				t.Fatal(err)
			}
			check(t, got.Diffs, tt.want)
		})
	}
}

func TestWhenError(t *testing.T) {
	boom := errors.New("boom")
	v := mustNew(t, WithWhen(func(string) (Predicate, error) {
		return func(Subject) (bool, error) { return false, boom }, nil
	}), WithRules(config.ValidationRule{Scope: config.Condition{When: "x"}, Line: 9}))
	_, err := v.Check(Subject{Seq: 4}, []byte(`{}`), []byte(`{}`))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 9") {
		t.Fatalf("got %v, want boom naming line 9", err)
	}
}

func TestFromConfig(t *testing.T) {
	c := config.Validation{
		Mode:         "structural",
		IgnoreFields: []string{"**.timestamp"},
		Normalize:    []string{"uuid"},
		Tolerance:    config.Tolerance{Numeric: 0.5},
		Rules: []config.ValidationRule{{
			Scope: config.Condition{Method: "tools/list"}, Mode: "partial",
			RequiredFields: []string{"result.tools[*].name"}, OnFailure: "warn", Line: 12,
		}},
	}
	v, err := FromConfig(c, []string{"result.extra"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, exp, act string
		mode                   Mode
		want                   []string
	}{
		{"structural default", "ping", `{"result":{"a":1,"timestamp":"x"}}`, `{"result":{"a":2,"timestamp":3,"extra":1}}`, Structural, nil},
		{"structural type", "ping", `{"result":{"a":1}}`, `{"result":{"a":"1"}}`, Structural, []string{`type result.a 1 "1"`}},
		{"rule", "tools/list", `{"result":{"tools":[{"name":"a"}]}}`, `{"result":{"tools":[{"name":"b"}]}}`, Partial, []string{`changed result.tools[0].name "a" "b"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Check(Subject{Method: tt.method}, []byte(tt.exp), []byte(tt.act))
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode != tt.mode {
				t.Errorf("got mode %s, want %s", got.Mode, tt.mode)
			}
			check(t, got.Diffs, tt.want)
		})
	}
}

func TestFromConfigErrors(t *testing.T) {
	seq := int64(1)
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
		{"normaliser", config.Validation{Normalize: []string{"uid"}}, []string{"validation.normalize", `"uid"`, "uuid, timestamp"}},
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
		{"seq and range", rule(config.ValidationRule{Scope: config.Condition{Seq: &seq, SeqRange: []int64{1, 2}}}), []string{"line 14", "seq_range"}},
		{"bad range", rule(config.ValidationRule{Scope: config.Condition{SeqRange: []int64{3, 2}}}), []string{"line 14", "from <= to"}},
		{"two methods", rule(config.ValidationRule{Scope: config.Condition{Method: "a", MethodEquals: "b"}}), []string{"line 14", "method_equals"}},
		{"when", rule(config.ValidationRule{Scope: config.Condition{When: "seq >"}}), []string{"line 14", "scope when", `"seq >"`}},
		{"no line", config.Validation{Rules: []config.ValidationRule{{}}}, []string{"validation rule 1:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromConfig(tt.c, nil)
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tt.want)
			}
			if !errors.Is(err, ErrConfig) && !errors.Is(err, ErrPattern) {
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

func TestWhenMatch(t *testing.T) {
	v := mustNew(t, WithRules(config.ValidationRule{
		Scope: config.Condition{When: `params.name == "echo" && seq > 2 && id == "7"`}, Mode: "structural",
	}))
	for _, tt := range []struct {
		name string
		s    Subject
		want Mode
	}{
		{"match", Subject{Seq: 3, Request: []byte(`{"id":"7","method":"tools/call","params":{"name":"echo"}}`)}, Structural},
		{"other id", Subject{Seq: 3, Request: []byte(`{"id":7,"method":"tools/call","params":{"name":"echo"}}`)}, Exact},
		{"other params", Subject{Seq: 3, Request: []byte(`{"id":"7","method":"tools/call","params":{"name":"add"}}`)}, Exact},
		{"early seq", Subject{Seq: 2, Request: []byte(`{"id":"7","method":"tools/call","params":{"name":"echo"}}`)}, Exact},
		{"no request", Subject{Seq: 9}, Exact},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Check(tt.s, []byte(`{"result":{}}`), []byte(`{"result":{}}`))
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode != tt.want {
				t.Errorf("got mode %s, want %s", got.Mode, tt.want)
			}
		})
	}
}

func TestWhenCompileError(t *testing.T) {
	_, err := New(WithWhen(func(string) (Predicate, error) { return nil, errors.New("col 3: bad") }),
		WithRules(config.ValidationRule{Scope: config.Condition{When: "a ==="}, Line: 3}))
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "col 3") {
		t.Fatalf("got %v, want the compiler's error naming line 3", err)
	}
}
