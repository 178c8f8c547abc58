package tape

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// FuzzDecodeLineRPC: a decoded message line's msg is refused exactly
// when it is not valid JSON (encoding/json.Valid), and the parse the
// message carries (Message.RPC) is jsonrpc.Parse's for the same bytes.
func FuzzDecodeLineRPC(f *testing.F) {
	for _, s := range lineSeeds() {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"type":"message","seq":1,"t_us":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}}`))
	// A duplicate msg member, plainly and escaped: the carried parse must
	// be of the bytes kept.
	f.Add([]byte(`{"type":"message","seq":1,"t_us":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}},"msg":{"jsonrpc":"2.0","id":2,"method":"ping"}}`))
	f.Add([]byte(`{"type":"message","seq":1,"t_us":0,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}},"m\u0073g":{"jsonrpc":"2.0","id":22,"method":"ping"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var env envelope
		if scanEnvelope(line, &env) != nil || lineType(line, &env) != "message" {
			return
		}
		var m Message
		var s slab
		e := decodeMessage(line, &env, &m, "", &s)
		if env.msg.ok() {
			raw := env.msg.of(line)
			if (raw[0] == '{' || raw[0] == '[') && !json.Valid(raw) && e == nil {
				t.Fatalf("msg %q is not valid JSON, and the line was accepted", raw)
			}
		}
		if e != nil {
			return
		}
		got, gerr := m.RPC()
		want, werr := jsonrpc.Parse(m.Msg)
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("RPC() = %+v, %v; want jsonrpc.Parse's %+v, %v", got, gerr, want, werr)
		}
	})
}
