package session

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

// BenchmarkAnsweredAsks: one op replays a tape of calls tools/calls,
// each of which the live server answers after it has asked roots/list,
// answered with the client's recorded answer (receiver.answerServer,
// through sender.sendBounded): the path of a session whose server asks
// on every call (sampling, elicitation, roots).
func BenchmarkAnsweredAsks(b *testing.B) {
	for _, calls := range []int{1000} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			lines := []string{"c2s", initReq, "s2c", initResp}
			for i := range calls {
				id, ask := strconv.Itoa(10+i), `"r`+strconv.Itoa(i)+`"`
				lines = append(lines,
					"c2s", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"roots"}}`,
					"s2c", `{"jsonrpc":"2.0","id":`+ask+`,"method":"roots/list"}`,
					"c2s", `{"jsonrpc":"2.0","id":`+ask+`,"result":{"roots":[]}}`,
					"s2c", `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				its := msgs(b, lines...)
				c := &scripted{in: make(chan transport.Incoming, 8), answer: func(msg []byte) [][]byte {
					rpc, _ := jsonrpc.Parse(msg)
					if rpc.Method != "tools/call" {
						return echo(msg)
					}
					return [][]byte{
						[]byte(`{"jsonrpc":"2.0","id":"live-` + string(rpc.ID) + `","method":"roots/list"}`),
						[]byte(`{"jsonrpc":"2.0","id":` + string(rpc.ID) + `,"result":{"content":[]}}`),
					}
				}}
				b.StartTimer()
				s, _, err := replayed(b, env(b, &dialer{c: c}, fast), its)
				if err != nil {
					b.Fatal(err)
				}
				if n := s.counts[ServerRequest]; n != calls {
					b.Fatalf("%d server requests answered from the tape, want %d", n, calls)
				}
			}
		})
	}
}
