package match

import (
	"errors"
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
		c, err := Parse(spec)
		if err != nil {
			if !errors.Is(err, ErrBadCondition) {
				t.Fatalf("got error %v, want one wrapping ErrBadCondition", err)
			}
			return
		}
		_, _ = c.Match(Msg{Seq: 7, Method: "tools/call", Dir: "c2s", Raw: []byte(raw)})
	})
}
