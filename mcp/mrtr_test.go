package mcp

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
)

func TestResultType(t *testing.T) {
	tests := []struct {
		name, result, want string
	}{
		{"discover", `{"resultType":"complete","ttlMs":0}`, ResultComplete},
		{"MRTR round", capRound1Res, ResultInputRequired},
		{"MRTR done", capRound3Res, ResultComplete},
		{"task", task26Create, ResultTask},
		{"tasks/get", task26GetDone, ResultComplete},
		{"legacy", `{"content":[{"type":"text","text":"x"}]}`, ""},
		{"empty result", `{}`, ""},
		{"other value kept", `{"resultType":"streaming"}`, "streaming"},
		{"escaped", `{"resultType":"inpu\u0074_required"}`, ResultInputRequired},
		{"not a string", `{"resultType":1}`, ""},
		{"nested only", `{"result":{"resultType":"task"}}`, ""},
		{"null", `null`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResultType([]byte(tt.result)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRequestState(t *testing.T) {
	tests := []struct {
		name, result, want string
		ok                 bool
	}{
		{"round 1", capRound1Res, "round=1", true},
		{"round 2", capRound2Res, "round=2;name=Ada", true},
		{"none", capElicitRes, "", false},
		{"done", capRound3Res, "", false},
		{"escaped", `{"requestState":"a\"b\\c\u00e9"}`, "a\"b\\cé", true},
		{"empty", `{"requestState":""}`, "", true},
		{"not a string", `{"requestState":{"x":1}}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RequestState([]byte(tt.result))
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestInputRequestKeys(t *testing.T) {
	tests := []struct {
		name, result string
		want         []string
	}{
		{"round 1", capRound1Res, []string{"step1"}},
		{"elicitation", capElicitRes, []string{"user_name"}},
		{"several, sorted", `{"resultType":"input_required","inputRequests":{"user_name":{},"greeting":{},"client_roots":{}}}`, []string{"client_roots", "greeting", "user_name"}},
		{"escaped key", `{"inputRequests":{"a\u0062":{}}}`, []string{"ab"}},
		{"task input", task26GetInput, []string{"confirm"}},
		{"empty map (load shedding)", `{"inputRequests":{}}`, nil},
		{"none", capRound3Res, nil},
		{"not an object", `{"inputRequests":[1]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := InputRequestKeys([]byte(tt.result)); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsRetryOf(t *testing.T) {
	params := func(msg string) []byte { return parse(t, msg).Params() }
	tests := []struct {
		name   string
		params []byte
		want   bool
	}{
		{"first round", params(capRound1), false},
		{"retry with state", params(capRound2), true},
		{"retry without state", params(capElicitRetry), true},
		{"state only", []byte(`{"name":"x","requestState":"s"}`), true},
		{"nested does not count", []byte(`{"arguments":{"requestState":"s"}}`), false},
		{"tasks/update", params(task26Update), true},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsRetryOf(tt.params); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSetRequestState(t *testing.T) {
	tests := []struct {
		name, params, state, want string
	}{
		{"replace, other bytes kept",
			`{ "_meta" : {"k":1},  "requestState" :  "round=1" , "arguments":{} }`, "round=9",
			`{ "_meta" : {"k":1},  "requestState" :  "round=9" , "arguments":{} }`},
		{"replace a non-string", `{"requestState":null}`, "s", `{"requestState":"s"}`},
		{"replace escaped name", `{"request\u0053tate":"old","x":1}`, "new", `{"request\u0053tate":"new","x":1}`},
		{"replace first of two", `{"requestState":"a","requestState":"b"}`, "c", `{"requestState":"c","requestState":"b"}`},
		{"add at the end", `{"name":"t","arguments":{} }`, "round=1", `{"name":"t","arguments":{},"requestState":"round=1" }`},
		{"add to empty", `{ }`, "s", `{"requestState":"s" }`},
		{"add, escaping", `{"a":1}`, "q\"\\\n<é>", `{"a":1,"requestState":"q\"\\\n<é>"}`},
		{"nested one untouched", `{"arguments":{"requestState":"x"}}`, "s", `{"arguments":{"requestState":"x"},"requestState":"s"}`},
		{"nil params", ``, "s", `{"requestState":"s"}`},
		{"remove last", `{"a":1, "requestState":"s"}`, "", `{"a":1}`},
		{"remove first", `{"requestState":"s" ,"a":1}`, "", `{"a":1}`},
		{"remove middle", `{"a":1,"requestState":"s","b":2}`, "", `{"a":1,"b":2}`},
		{"remove only", `{ "requestState":"s" }`, "", `{  }`},
		{"remove absent", `{"a":1}`, "", `{"a":1}`},
		{"remove from nil", ``, "", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.params)
			got, err := SetRequestState(in, tt.state)
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if string(in) != tt.params {
				t.Errorf("the input changed to %s", in)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
			if s, ok := RequestState(got); tt.state != "" && (s != tt.state || !ok) {
				t.Errorf("RequestState of the result = %q, %v; want %q", s, ok, tt.state)
			}
		})
	}
}

// The recorded retry gets the live state and keeps every other byte.
func TestSetRequestStateOnCapturedRetry(t *testing.T) {
	m := parse(t, capRound2)
	got, err := SetRequestState(m.Params(), "round=1;live=42")
	if err != nil {
		t.Fatal(err)
	}
	var before, after map[string]json.RawMessage
	if err := json.Unmarshal(m.Params(), &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &after); err != nil {
		t.Fatal(err)
	}
	if string(after["requestState"]) != `"round=1;live=42"` {
		t.Errorf("requestState = %s", after["requestState"])
	}
	delete(before, "requestState")
	delete(after, "requestState")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("other members changed:\n%v\n%v", before, after)
	}
	if len(got)-len(m.Params()) != len(`;live=42`) {
		t.Errorf("length changed by %d, want %d", len(got)-len(m.Params()), len(`;live=42`))
	}
}

func TestSetRequestStateErrors(t *testing.T) {
	for _, p := range []string{`[1]`, `"s"`, `{"a":`, `{"a" 1}`, `{}x`, `null`} {
		t.Run(p, func(t *testing.T) {
			got, err := SetRequestState([]byte(p), "s")
			if !errors.Is(err, ErrNotObject) || got != nil {
				t.Errorf("got %s, %v; want nil, ErrNotObject", got, err)
			}
		})
	}
}
