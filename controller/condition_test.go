package controller

import (
	"testing"
)

const rawCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m7"},"list":[1,2]}}`

// Parsing is package match's (match.TestParse); these check that the
// controller's Msg reaches the condition whole.
func TestConditionMatch(t *testing.T) {
	call := Msg{Seq: 7, Session: "s1", Dir: "c2s", Kind: "request", Method: "tools/call", ID: "7", Raw: []byte(rawCall)}
	bare := Msg{Seq: 3, Dir: "c2s", Kind: "notification", Method: "ping", Raw: []byte(`{"jsonrpc":"2.0","method":"ping"}`)}
	broken := Msg{Seq: 4, Method: "ping", Raw: []byte(`{not json`)}
	answer := Msg{Seq: 9, Dir: "s2c", Kind: "error", Raw: []byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"nope"}}`)}
	tests := []struct {
		spec    string
		m       Msg
		want    bool
		wantErr bool
	}{
		{"7", call, true, false},
		{"8", call, false, false},
		{"tools/call", call, true, false},
		{"ping", call, false, false},
		{`method == "tools/call" && params.arguments.message == "m7"`, call, true, false},
		{`params.arguments.message == "m8"`, call, false, false},
		{`session == "s1" && dir == "c2s" && kind == "request"`, call, true, false},
		{`id == 7`, call, true, false},
		{`id == "a"`, answer, true, false},
		{`error.code == -32601`, answer, true, false},
		{`result == nil`, answer, true, false},
		{`params.list[1] == 2`, call, true, false},
		{`len(params.list) == 2`, call, true, false},
		// missing members are nil, never a crash
		{`params.arguments.message == "m7"`, bare, false, false},
		{`params.arguments.message == nil`, bare, true, false},
		{`error.code == -32601`, call, false, false},
		{`params.list[1] == 2`, bare, false, false},
		{`params.arguments.message == "m7"`, broken, false, false},
		{`seq == 4`, broken, true, false},
		// run-time errors: no match, and an error
		{`params.list[5] == 1`, call, false, true},
		{`params.arguments.message + 1 > 0`, call, false, true},
		{`params.name`, call, false, true}, // a string, not a bool
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := ParseCondition(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Match(tt.m)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("Match(seq %d): got %v, %v; want %v, error %v", tt.m.Seq, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
