package controller

import (
	"testing"
)

// FuzzCondition: any spec either fails to parse with ErrBadCondition or
// gives a condition that matches any message bytes without panicking.
func FuzzCondition(f *testing.F) {
	f.Add("12", rawCall)
	f.Add("tools/call", rawCall)
	f.Add(`method == "tools/call" && params.arguments.message == "m7"`, rawCall)
	f.Add(`params.list[9] == 1`, `{"params":{"list":[]}}`)
	f.Add(`error.code == -32601 || result.x > 3`, `{"error":null}`)
	f.Add(`id in ["a", 1]`, `[1,2]`)
	f.Fuzz(func(t *testing.T, spec, raw string) {
		c, err := ParseCondition(spec)
		if err != nil {
			return
		}
		_, _ = c.Match(Msg{Seq: 7, Method: "tools/call", Dir: "c2s", Raw: []byte(raw)})
	})
}

// FuzzDecodeRequest: the control protocol's decoder never panics, and what
// it accepts names a known command.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"cmd":"step","n":2}`,
		`{"cmd":"seek","seq":3}`,
		`{"cmd":"inject","session":"s1","msg":{"jsonrpc":"2.0","method":"ping"}}`,
		`{"cmd":"break","spec":"tools/call"}`,
		`{"cmd":"c"}`,
		`[]`, `{"cmd":1}`, `nope`,
	} {
		f.Add([]byte(s))
	}
	names := map[string]bool{}
	for _, v := range protocolCmds {
		names[v] = true
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := decodeRequest(line)
		if err != nil {
			return
		}
		if !names[req.Cmd] {
			t.Fatalf("accepted command %q", req.Cmd)
		}
		if req.Cmd == "step" && req.N < 1 {
			t.Fatalf("accepted step n=%d", req.N)
		}
	})
}
