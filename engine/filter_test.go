package engine

import (
	"testing"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

func TestFilterKeep(t *testing.T) {
	msg := func(us int64, raw string) (tape.Message, jsonrpc.Message) {
		rpc, err := jsonrpc.Parse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return tape.Message{TUS: us, Msg: []byte(raw)}, rpc
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	note := `{"jsonrpc":"2.0","method":"notifications/progress"}`
	initialized := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize"}`
	answer := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name string
		f    Filter
		us   int64
		raw  string
		want bool
	}{
		{"zero keeps", Filter{}, 5, call, true},
		{"before window", Filter{StartOffset: time.Second}, 999_999, call, false},
		{"window start", Filter{StartOffset: time.Second}, 1_000_000, call, true},
		{"after window", Filter{EndOffset: time.Second}, 1_000_001, call, false},
		{"answer outside window", Filter{EndOffset: time.Second}, 2_000_000, answer, false},
		{"included", Filter{IncludeMethods: []string{"tools/call"}}, 0, call, true},
		{"not included", Filter{IncludeMethods: []string{"tools/call"}}, 0, list, false},
		{"handshake always included", Filter{IncludeMethods: []string{"tools/call"}}, 0, initialize, true},
		{"answers follow", Filter{IncludeMethods: []string{"tools/call"}}, 0, answer, true},
		{"excluded", Filter{ExcludeMethods: []string{"tools/list"}}, 0, list, false},
		{"notification skipped", Filter{SkipNotifications: true}, 0, note, false},
		{"initialized kept", Filter{SkipNotifications: true}, 0, initialized, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, rpc := msg(tt.us, tt.raw)
			if got, why := tt.f.keep(&m, &rpc); got != tt.want {
				t.Errorf("keep = %v (%s), want %v", got, why, tt.want)
			}
		})
	}
}
