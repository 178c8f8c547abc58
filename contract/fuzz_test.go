package contract

import (
	"bytes"
	"testing"

	"github.com/replayctl/replayctl/validator"
)

// FuzzRead: a contract file is outside input: reading it, checking an
// answer against it and comparing it never panic.
func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	c, err := Draw()
	if err != nil {
		f.Fatal(err)
	}
	c.Write(&b)
	f.Add(b.String(), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`)
	f.Add(`{"format":"replayctl-contract","version":1,"tools":{"t":{"output":{"type":"object","required":["a"],"properties":{"a":null,"b":{"items":null}}}}}}`, `{"jsonrpc":"2.0","id":1,"result":{"b":[1]}}`)
	f.Add(`{"format":"replayctl-contract","version":1,"tools":{"t":null}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	f.Add(`{"format":"replayctl-contract","version":1,"tools":{"t":{"input":{"properties":{"a":{"type":"string"}},"required":["a"]}}}}`, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"properties":{"b":{}},"required":["b"]}}]}}`)
	f.Fuzz(func(t *testing.T, doc, answer string) {
		c, err := Read(bytes.NewReader([]byte(doc)))
		if err != nil {
			return
		}
		c.CheckAnswer(validator.Subject{Request: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)}, []byte(answer))
		c.CheckAnswer(validator.Subject{Request: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}, []byte(answer))
		Diff(c, c)
		Diff(c, New())
		Diff(New(), c)
	})
}
