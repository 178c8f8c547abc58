package validator

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestRuleScopes(t *testing.T) {
	rules := []Rule{
		{Scope: Scope{Method: "tools/list"}, Mode: Structural, OnFailure: OnFailureWarn},
		{Scope: Scope{Method: "tools/call", Session: "s2"}, Mode: Schema, OnFailure: OnFailureRetry},
		{Scope: Scope{Seq: &SeqRange{5, 5}}, OnFailure: OnFailureSkip},
		{Scope: Scope{Seq: &SeqRange{10, 20}}, OnFailure: OnFailureIgnore, MaxRetries: 2},
		{Scope: Scope{Kind: "error"}, Mode: Structural},
		{Scope: Scope{Kind: "notification"}, OnFailure: OnFailureWarn},
		{Scope: Scope{When: `method == "prompts/get"`}, Mode: Partial, RequiredFields: []string{"result.messages"}},
		{Scope: Scope{Always: true, Session: "s9"}, OnFailure: OnFailureRetry, MaxRetries: 7},
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
		{"method and session", Subject{Method: "tools/call", Session: "s2"}, result, Schema, "retry", DefaultRetries},
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
	v := mustNew(t, WithIgnore("**.timestamp"), WithRules(Rule{
		Scope: Scope{Method: "tools/call"}, IgnoreFields: []string{"result.structuredContent"},
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
	}), WithRules(Rule{Scope: Scope{When: "x"}, Line: 9}))
	_, err := v.Check(Subject{Seq: 4}, []byte(`{}`), []byte(`{}`))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 9") {
		t.Fatalf("got %v, want boom naming line 9", err)
	}
}

// TestNewOptions: the mode, ignored paths, normalisers and tolerance apply
// to the messages no rule matches; a rule's mode and fields to the ones
// it matches.
func TestNewOptions(t *testing.T) {
	v := mustNew(t, WithMode(Structural), WithIgnore("**.timestamp"), WithIgnore("result.extra"),
		WithNormalize("uuid"), WithTolerance(0.5, 0), WithRules(Rule{
			Scope: Scope{Method: "tools/list"}, Mode: Partial,
			RequiredFields: []string{"result.tools[*].name"}, OnFailure: OnFailureWarn, Line: 12,
		}))
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

func TestNewErrors(t *testing.T) {
	// rule puts r second, at line 14, after a rule that is fine.
	rule := func(r Rule) []Option {
		r.Line = 14
		return []Option{WithRules(Rule{Scope: Scope{Always: true}}, r)}
	}
	always := Scope{Always: true}
	tests := []struct {
		name    string
		opts    []Option
		want    []string // substrings of the error
		ruleErr bool     // a *RuleError for the second rule
	}{
		{"mode", []Option{WithMode("exakt")}, []string{`"exakt"`, "structural"}, false},
		{"normaliser", []Option{WithNormalize("uid")}, []string{`"uid"`, "uuid, timestamp"}, false},
		{"tolerance", []Option{WithTolerance(0, -1)}, []string{"tolerance", "-1"}, false},
		{"ignore", []Option{WithIgnore("a..b")}, []string{`"a..b"`}, false},
		{"rule mode", rule(Rule{Scope: always, Mode: "loose"}), []string{"validation rule 2 (line 14)", `"loose"`}, true},
		{"partial without fields", rule(Rule{Scope: always, Mode: Partial}), []string{"line 14", "required_fields"}, true},
		{"fields without partial", rule(Rule{Scope: always, Mode: Exact, RequiredFields: []string{"a"}}), []string{"line 14", "only apply in mode partial"}, true},
		{"required path", rule(Rule{Scope: always, RequiredFields: []string{"a["}}), []string{"line 14", "required_fields", `"a["`}, true},
		{"required root", rule(Rule{Scope: always, RequiredFields: []string{"$"}}), []string{"line 14", "whole message"}, true},
		{"rule ignore", rule(Rule{Scope: always, IgnoreFields: []string{"**x"}}), []string{"line 14", "ignore_fields"}, true},
		{"on_failure", rule(Rule{Scope: always, OnFailure: "panic"}), []string{"line 14", `"panic"`, "ignore, warn"}, true},
		{"max_retries", rule(Rule{Scope: always, MaxRetries: -1}), []string{"line 14", "negative"}, true},
		{"empty scope", rule(Rule{}), []string{"line 14", "always: true"}, true},
		{"kind", rule(Rule{Scope: Scope{Kind: "answer"}}), []string{"line 14", `"answer"`}, true},
		{"bad range", rule(Rule{Scope: Scope{Seq: &SeqRange{3, 2}}}), []string{"line 14", "seq_range [3 2]", "from <= to"}, true},
		{"when", rule(Rule{Scope: Scope{When: "seq >"}}), []string{"line 14", "scope when", `"seq >"`}, true},
		{"no line", []Option{WithRules(Rule{})}, []string{"validation rule 1:"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts...)
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tt.want)
			}
			if !errors.Is(err, ErrConfig) && !errors.Is(err, ErrPattern) {
				t.Errorf("got %v, want it to wrap ErrConfig or ErrPattern", err)
			}
			var re *RuleError
			if tt.ruleErr && (!errors.As(err, &re) || re.Index != 1 || re.Line != 14) {
				t.Errorf("got %#v, want a *RuleError for index 1, line 14", err)
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
	v := mustNew(t, WithRules(Rule{
		Scope: Scope{When: `params.name == "echo" && seq > 2 && id == "7"`}, Mode: Structural,
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
		WithRules(Rule{Scope: Scope{When: "a ==="}, Line: 3}))
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "col 3") {
		t.Fatalf("got %v, want the compiler's error naming line 3", err)
	}
}

// TestPathErrorNamesKey: a path that does not parse is named by the key
// it came from (required_fields[1], ignore_fields[0]), as a bad path, not
// as an "ignore pattern" whatever its key.
func TestPathErrorNamesKey(t *testing.T) {
	always := Scope{Always: true}
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"required", WithRules(Rule{Scope: always, RequiredFields: []string{"a", "$.a b"}}), `required_fields[1]: bad path "$.a b": column 4`},
		{"rule ignore", WithRules(Rule{Scope: always, IgnoreFields: []string{"x["}}), `ignore_fields[0]: bad path "x[": column`},
		{"ignore", WithIgnore("ok", "a..b"), `bad path "a..b": column`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opt)
			if err == nil || !errors.Is(err, ErrPattern) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "ignore pattern") {
				t.Errorf("got %v, want ErrPattern containing %q and not \"ignore pattern\"", err, tt.want)
			}
		})
	}
}
