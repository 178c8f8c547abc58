package controller

import "testing"

const rawCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m7"},"list":[1,2]}}`

// The language itself is package match's (its tests); these check that
// every field of the controller's Msg reaches the condition.
func TestConditionSeesEveryField(t *testing.T) {
	call := Msg{Seq: 7, Session: "s1", Dir: "c2s", Kind: "request", Method: "tools/call", ID: "7", Raw: []byte(rawCall)}
	tests := []struct {
		spec string
		want bool
	}{
		{"7", true},
		{"tools/call", true},
		{`seq == 7 && session == "s1" && dir == "c2s" && kind == "request"`, true},
		{`method == "tools/call" && id == 7`, true},
		{`params.arguments.message == "m7" && result == nil && error == nil`, true},
		{`session == "s2"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := ParseCondition(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := c.Match(call); got != tt.want || err != nil {
				t.Errorf("Match: got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
