package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/scheduler"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		wantLine int
		wantKey  string
		wantMsg  string // a part of Msg
	}{
		// Decoding: keys and types.
		{"unknown key, a typo", "speed: fast\nvalidaton: {}\n", 2, "", `unknown key "validaton" (did you mean "validation"?)`},
		{"unknown nested key", "validation:\n  moed: exact\n", 2, "validation", `unknown key "moed" (did you mean "mode"?)`},
		{"unknown key in a list item", "transformations:\n  - name: x\n    conditon: {always: true}\n", 3, "transformations[0]", `(did you mean "condition"?)`},
		{"key in the wrong section", "max_retries: 3\n", 1, "", `belongs under validation.rules[] or error_handling`},
		{"unknown key, nothing close", "zzzzzz: 1\n", 1, "", "want one of: speed, start_offset"},
		{"string for a number", "validation:\n  tolerance:\n    numeric: lots\n", 3, "validation.tolerance.numeric", `want a number, got "lots"`},
		{"yes is not a bool", "skip_notifications: yes\n", 1, "skip_notifications", `want true or false, got "yes"`},
		{"fraction for a whole number", "performance:\n  sessions: 1.5\n", 2, "performance.sessions", `want a whole number, got "1.5"`},
		{"scalar for a list", "include_methods: tools/call\n", 1, "include_methods", `want a list of strings (write [tools/call]), got "tools/call"`},
		{"scalar for a mapping", "validation: strict\n", 1, "validation", `want a mapping (key: value), got "strict"`},
		{"list for a string", "speed: [fast]\n", 1, "speed", "want a string, got a list"},
		{"mapping for a list", "thresholds: {p99: 1}\n", 1, "thresholds", "want a list of strings, got a mapping"},
		{"not a duration", "error_handling:\n  retry_delay: soon\n", 2, "error_handling.retry_delay", `want a duration like 50ms or 1s, got "soon"`},
		{"mapping for a fault probability", "chaos:\n  faults:\n    timeout: {p: 1}\n", 3, "chaos.faults.timeout", "want a number, got a mapping"},
		{"duplicate key", "speed: fast\nspeed: 10x\n", 2, "", `key "speed" appears twice (first on line 1)`},
		{"list as a key", "? [a]\n: 1\n", 1, "", "a key must be a plain word, got a list"},
		{"syntax error", "speed: fast\nvalidation: [\n", 2, "", "not valid YAML"},
		{"two documents", "speed: fast\n---\nspeed: 10x\n", 2, "", "a second YAML document"},
		{"top level is a list", "- speed: fast\n", 1, "", "want a mapping of keys"},
		{"merge of a scalar", "validation:\n  <<: 3\n", 2, "validation", "want a mapping to merge"},
		{"alias bomb through merges", mergeBomb(), 0, "validation.rules[5]", "expands to more than"},
		{"alias bomb in a value", valueBomb(), 7, "transformations[0].action.set_param.value", "excessive aliasing"},

		// Values.
		{"bad speed", "speed: 11\n", 1, "speed", `"11": did you mean "11x"? want realtime, fast`},
		{"negative offset", "start_offset: -1s\n", 1, "start_offset", "want a duration of 0 or more, got -1s"},
		{"empty window", "start_offset: 5s\nend_offset: 2s\n", 2, "end_offset", "is not after start_offset"},
		{"empty method", "include_methods: ['']\n", 1, "include_methods[0]", "an empty method"},
		{"included and excluded", "include_methods: [ping]\nexclude_methods: [a, ping]\n", 2, "exclude_methods[1]", `"ping" is also in include_methods`},
		{"no condition", "transformations:\n  - name: x\n    action: {drop: true}\n", 2, "transformations[0].condition", "would match nothing; write condition: { always: true }"},
		{"empty action", "transformations:\n  - condition: {always: true}\n    action: {}\n", 3, "transformations[0].action", "the action does nothing; set one of: set_param"},
		{"no action", "transformations:\n  - condition: {always: true}\n", 2, "transformations[0].action", "the action does nothing"},
		{"null action members", "transformations:\n  - condition: {always: true}\n    action:\n      set_param:\n", 4, "transformations[0].action", "the action does nothing"},
		{"drop with others", "transformations:\n  - condition: {always: true}\n    action: {drop: true, add_delay: 1s}\n", 3, "transformations[0].action.drop", "keep drop alone"},
		{"condition kind", "transformations:\n  - condition:\n      kind: requst\n    action: {drop: true}\n", 3, "transformations[0].condition.kind", `"requst" is not a message kind; want one of: request, notification, response, error (did you mean "request"?)`},
		{"negative seq", "transformations:\n  - condition: {seq: -1}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq", "want a seq of 0 or more"},
		{"seq_range of one", "transformations:\n  - condition: {seq_range: [3]}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq_range", "want two seqs [from, to], got 1"},
		{"seq_range of three", "transformations:\n  - condition: {seq_range: [1, 2, 3]}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq_range", "got 3"},
		{"seq_range empty", "transformations:\n  - condition: {seq_range: []}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq_range", "got 0"},
		{"seq_range descending", "transformations:\n  - condition: {seq_range: [20, 10]}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq_range", "from 20 is after to 10"},
		{"seq_range negative", "transformations:\n  - condition: {seq_range: [-2, 10]}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq_range", "want seqs of 0 or more"},
		{"seq_range of words", "transformations:\n  - condition: {seq_range: [a, b]}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq_range[0]", `want a whole number, got "a"`},
		{"method and method_equals", "transformations:\n  - condition: {method: a, method_equals: b}\n    action: {drop: true}\n", 2, "transformations[0].condition.method", "cannot both hold"},
		{"bad when", "transformations:\n  - condition:\n      when: 'seq +'\n    action: {drop: true}\n", 3, "transformations[0].condition.when", "seq +"},
		{"set_param without path", "transformations:\n  - condition: {always: true}\n    action:\n      set_param: {value: 1}\n", 4, "transformations[0].action.set_param.path", "want a path such as"},
		{"remove_param without path", "transformations:\n  - condition: {always: true}\n    action:\n      remove_param: {path: ' '}\n", 4, "transformations[0].action.remove_param.path", "want a path"},
		{"set_result without path", "transformations:\n  - condition: {always: true}\n    action:\n      set_result: {value: 1}\n", 4, "transformations[0].action.set_result.path", "want a path"},
		{"bad pattern", "transformations:\n  - condition: {always: true}\n    action:\n      replace_param: {path: $.a, pattern: '(', replacement: x}\n", 4, "transformations[0].action.replace_param.pattern", "missing closing )"},
		{"no pattern", "transformations:\n  - condition: {always: true}\n    action:\n      replace_param: {path: $.a}\n", 4, "transformations[0].action.replace_param.pattern", "want a regular expression"},
		{"error without code", "transformations:\n  - condition: {always: true}\n    action:\n      inject_error: {message: no}\n", 4, "transformations[0].action.inject_error.code", "want a JSON-RPC error code"},
		{"error without message", "transformations:\n  - condition: {always: true}\n    action:\n      inject_error: {code: -1}\n", 4, "transformations[0].action.inject_error.message", "want the error's message"},
		{"rename to nothing", "transformations:\n  - condition: {always: true}\n    action:\n      rename_method: {}\n", 4, "transformations[0].action.rename_method.to", "want the new method name"},
		{"negative delay", "transformations:\n  - condition: {always: true}\n    action: {add_delay: -5ms}\n", 3, "transformations[0].action.add_delay", "0 or more"},
		{"validation mode", "validation:\n  mode: strict\n", 2, "validation.mode", `"strict" is not a validation mode; want one of: exact, structural, partial, schema`},
		{"normaliser", "validation:\n  normalize: [uuid, dates]\n", 2, "validation.normalize[1]", `"dates" is not a normaliser`},
		{"normaliser regex does not compile", "validation:\n  normalize:\n    - timestamp\n    - regex: 'took (\\d+ ms'\n", 4, "validation.normalize[1].regex", "missing closing )"},
		{"normaliser regex matches nothing in particular", "validation:\n  normalize:\n    - {regex: '\\d*', placeholder: <n>}\n", 3, "validation.normalize[0].regex", "matches the empty string"},
		{"normaliser placeholder alone", "validation:\n  normalize:\n    - {placeholder: <n>}\n", 3, "validation.normalize[0].regex", "a placeholder without a regex"},
		{"normaliser unknown key", "validation:\n  normalize:\n    - {pattern: x}\n", 3, "validation.normalize[0]", `unknown key "pattern"`},
		{"normaliser list", "validation:\n  normalize: [[uuid]]\n", 2, "validation.normalize[0]", "want a normaliser: uuid, timestamp, ids, or {regex: …, placeholder: …}, got a list"},
		{"negative tolerance", "validation:\n  tolerance: {numeric: -0.1}\n", 2, "validation.tolerance.numeric", "want a finite number of 0 or more, got -0.1"},
		{"NaN tolerance", "validation:\n  tolerance: {relative: .nan}\n", 2, "validation.tolerance.relative", "got NaN"},
		{"empty ignore path", "validation:\n  ignore_fields: [a, '']\n", 2, "validation.ignore_fields[1]", "an empty path"},
		{"rule mode", "validation:\n  rules:\n    - mode: loose\n", 3, "validation.rules[0].mode", `"loose" is not a validation mode`},
		{"rule on_failure", "validation:\n  rules:\n    - on_failure: wran\n", 3, "validation.rules[0].on_failure", `(did you mean "warn"?)`},
		{"rule scope kind", "validation:\n  rules:\n    - scope: {kind: answer}\n", 3, "validation.rules[0].scope.kind", `"answer" is not a message kind`},
		{"partial without fields", "validation:\n  rules:\n    - scope: {method: ping}\n      mode: partial\n", 4, "validation.rules[0].mode", "add required_fields"},
		{"retries without retry", "validation:\n  rules:\n    - on_failure: warn\n      max_retries: 2\n", 4, "validation.rules[0].max_retries", "only with on_failure: retry"},
		{"negative rule retries", "validation:\n  rules:\n    - on_failure: retry\n      max_retries: -2\n", 4, "validation.rules[0].max_retries", "want 0 or more, got -2"},
		{"strategy", "error_handling:\n  strategy: abort\n", 2, "error_handling.strategy", `"abort" is not a strategy; want one of: continue, pause, stop, retry`},
		{"negative retries", "error_handling:\n  max_retries: -1\n", 2, "error_handling.max_retries", "want 0 or more"},
		{"negative sessions", "performance:\n  sessions: -3\n", 2, "performance.sessions", "want 1 to 100000 virtual sessions (as --sessions), got -3"},
		{"negative timeout", "performance:\n  timeout: -1s\n", 2, "performance.timeout", "0 or more"},
		{"negative spin", "performance:\n  spin: -1ms\n", 2, "performance.spin", "0 or more"},
		{"spin of an hour", "performance:\n  spin: 1h\n", 2, "performance.spin", "want at most 1s"},
		{"negative gc_headroom", "performance:\n  gc_headroom: -1MiB\n", 2, "performance.gc_headroom", `want a size of 0 or more, e.g. 64MiB, got "-1MiB"`},
		{"gc_headroom of words", "performance:\n  gc_headroom: lots\n", 2, "performance.gc_headroom", `want a size of 0 or more`},
		{"unknown fault", "chaos:\n  faults: {timeout: 0.1, timout: 0.2}\n", 2, "chaos.faults", `unknown key "timout" (did you mean "timeout"?)`},
		{"fault spelled twice", "chaos:\n  faults: {unknown_method: 0.1, unknown-method: 0.2}\n", 2, "chaos.faults.unknown_method", `"unknown-method" and "unknown_method" are the same fault`},
		{"faults above 1 in all", "chaos:\n  faults: {timeout: 0.6, drop: 0.5}\n", 2, "chaos.faults", "add up to 1.1, more than 1"},
		{"seq and seq_range", "transformations:\n  - condition: {seq: 1, seq_range: [1, 2]}\n    action: {drop: true}\n", 2, "transformations[0].condition.seq_range", "cannot both be set"},
		{"required fields outside partial", "validation:\n  rules:\n    - mode: exact\n      required_fields: [result]\n", 4, "validation.rules[0].required_fields", "only in mode partial"},
		{"partial from validation.mode", "validation:\n  mode: partial\n  rules:\n    - on_failure: warn\n", 4, "validation.rules[0].mode", "add required_fields"},
		{"fault above 1", "chaos:\n  faults:\n    timeout: 5\n", 3, "chaos.faults.timeout", "want a number from 0 to 1, got 5"},
		{"target without fault", "chaos:\n  targets:\n    - {method: ping, nth: 1}\n", 3, "chaos.targets[0].fault", "want the fault to inject"},
		{"target without method", "chaos:\n  targets:\n    - {fault: timeout, nth: 1}\n", 3, "chaos.targets[0].method", "want the method"},
		{"target bad fault", "chaos:\n  targets:\n    - {method: ping, fault: boom, nth: 1}\n", 3, "chaos.targets[0].fault", `"boom" is not a fault`},
		{"target never fires", "chaos:\n  targets:\n    - {method: ping, fault: timeout}\n", 3, "chaos.targets[0]", "never fires"},
		{"seed not a number", "chaos:\n  seed: abc\n", 2, "chaos.seed", `want a whole number, got "abc"`},
		{"bad threshold", "thresholds: [p99<200ms, fast please]\n", 1, "thresholds[1]", `"fast please" is not a threshold`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("replay.yaml", []byte(tc.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T) and %+v, want an *Error", err, err, f)
			}
			if e.Path != "replay.yaml" {
				t.Errorf("got path %q, want replay.yaml", e.Path)
			}
			if tc.wantLine != 0 && e.Line != tc.wantLine {
				t.Errorf("got line %d, want %d (%v)", e.Line, tc.wantLine, e)
			}
			if e.Key != tc.wantKey {
				t.Errorf("got key %q, want %q (%v)", e.Key, tc.wantKey, e)
			}
			if !strings.Contains(e.Msg, tc.wantMsg) {
				t.Errorf("got message %q, want it to contain %q", e.Msg, tc.wantMsg)
			}
		})
	}
}

// mergeBomb is a "billion laughs" through merge keys: rule i merges rule
// i-1 ten times over.
func mergeBomb() string {
	var b strings.Builder
	b.WriteString("validation:\n  rules:\n    - &a0 {on_failure: warn}\n")
	for i := 1; i < 10; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "    - &a%d {<<: [%s%s]}\n", i, strings.Repeat(p+", ", 9), p)
	}
	return b.String()
}

// valueBomb is a "billion laughs" in a value of any shape.
func valueBomb() string {
	var b strings.Builder
	b.WriteString("transformations:\n  - condition: {always: true}\n    action:\n      set_param:\n        path: $.a\n        value:\n")
	b.WriteString("          - &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "          - &a%d [%s%s]\n", i, strings.Repeat(p+", ", 9), p)
	}
	return b.String()
}

func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"speed: fast\n\n\n\n\n\n\n\n\n\n\nvalidaton: {}\n", `replay.yaml line 12: unknown key "validaton" (did you mean "validation"?)`},
		{"speed: fast\n\n\n\n\nvalidation:\n  tolerance: {numeric: lots}\n", `replay.yaml line 7: validation.tolerance.numeric: want a number, got "lots"`},
	} {
		_, err := Parse("replay.yaml", []byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []string{"", "\n  \n", "# only a comment\n", "~\n", "---\n", "{}\n"} {
		t.Run(strings.TrimSpace(in), func(t *testing.T) {
			f, err := Parse("empty.yaml", []byte(in))
			if err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if !reflect.DeepEqual(f, &File{}) {
				t.Errorf("got %+v, want an empty config", f)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	in := `validation:
  enabled: false
  normalize: []
  tolerance: {numeric: 1}   # an integer for a number
  rules:
    - &base
      on_failure: warn
      scope: {method: ping}
    - <<: [*base]
      on_failure: skip
transformations:

  - name: first
    condition: {always: true}
    action: {regenerate_id: true}
  - condition: {seq: 0}
    action:
      set_param: {path: $.params.n, value: null}
error_handling:
  retry_delay: 0
chaos:
  seed: 0
`
	f, err := Parse("v.yaml", []byte(in))
	if err != nil {
		t.Fatalf("got %v, want no error; input:\n%s", err, in)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"enabled", *f.Validation.Enabled, false},
		{"numeric", f.Validation.Tolerance.Numeric, 1.0},
		{"rule 0 on_failure", f.Validation.Rules[0].OnFailure, "warn"},
		{"rule 0 scope", f.Validation.Rules[0].Scope.Method, "ping"},
		{"rule 1 on_failure (own key wins over merged)", f.Validation.Rules[1].OnFailure, "skip"},
		{"rule 1 scope (merged)", f.Validation.Rules[1].Scope.Method, "ping"},
		{"rule 0 line", f.Validation.Rules[0].Line, 6},
		{"rule 1 line", f.Validation.Rules[1].Line, 9},
		{"transformation 0 line", f.Transformations[0].Line, 13},
		{"transformation 1 line", f.Transformations[1].Line, 16},
		{"seq 0 is set", *f.Transformations[1].Condition.Seq, int64(0)},
		{"value null", f.Transformations[1].Action.SetParam.Value, nil},
		{"seed 0 is set", *f.Chaos.Seed, int64(0)},
		{"retry_delay", f.ErrorHandling.RetryDelay, Duration(0)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("speed: 10x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(good)
	if err != nil || f.Speed != "10x" {
		t.Errorf("got %+v, %v, want speed 10x", f, err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	_, err = Load(missing)
	var e *Error
	if !errors.As(err, &e) || e.Line != 0 || !strings.Contains(err.Error(), missing+": cannot read the config file: no such file") {
		t.Errorf("got %v, want an *Error saying %s cannot be read", err, missing)
	}
}

// TestParseNormalize: validation.normalize takes names and, as mappings,
// regular expressions with their placeholders.
func TestParseNormalize(t *testing.T) {
	in := "validation:\n  normalize:\n    - timestamp\n    - regex: 'req-[0-9a-f]{8}'\n      placeholder: <request>\n    - {regex: 'took \\d+ ms'}\n"
	f, err := Parse("n.yaml", []byte(in))
	if err != nil {
		t.Fatalf("got %v, want no error; input:\n%s", err, in)
	}
	want := []Normalizer{{Name: "timestamp"}, {Regex: "req-[0-9a-f]{8}", Placeholder: "<request>"}, {Regex: `took \d+ ms`}}
	if !reflect.DeepEqual(f.Validation.Normalize, want) {
		t.Errorf("got %+v, want %+v", f.Validation.Normalize, want)
	}
}

// TestSpeedReadOnce: Parse reads the speed once, as it checks it, and
// gives the typed value beside the text.
func TestSpeedReadOnce(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want scheduler.Speed
	}{
		{"speed: rps:12.5\n", scheduler.Speed{Mode: scheduler.Rate, RPS: 12.5}},
		{"speed: 10x\n", scheduler.Speed{Mode: scheduler.Scaled, Factor: 10}},
		{"start_offset: 1s\n", scheduler.Speed{}},
	} {
		f, err := Parse("c.yaml", []byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if f.SpeedValue != tc.want {
			t.Errorf("%q: SpeedValue %+v, want %+v", tc.yaml, f.SpeedValue, tc.want)
		}
	}
}

// TestParseThresholdFilters: thresholds with a filter, as k6 writes
// tagged metrics (p99{method:tools/call}<200ms), and k6's p(99), are
// thresholds to the file's check; the report package reads them.
func TestParseThresholdFilters(t *testing.T) {
	in := "thresholds:\n  - p99{method:tools/call}<200ms\n  - 'error_rate{tool:search} < 1%'\n  - p(99)<1s\n  - max{resource:test://static/resource/1}<=5ms\n"
	f, err := Parse("replay.yaml", []byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(f.Thresholds) != 4 {
		t.Errorf("thresholds %q, want 4", f.Thresholds)
	}
	if _, err := Parse("replay.yaml", []byte("thresholds: ['p99{method:x}{tool:y}<1s']\n")); err == nil {
		t.Errorf("two filters: got no error")
	}
}
