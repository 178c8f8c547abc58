package controller

import (
	"testing"
)

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
