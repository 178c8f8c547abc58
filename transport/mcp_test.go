package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// exchangeTimeout bounds each wait for an answer from a real server; it is
// a failure deadline, not a timing assertion.
const exchangeTimeout = 30 * time.Second

type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// await reads Incoming until the response with the given id, and returns
// it with the messages seen before it.
func await(t *testing.T, c Conn, id int) (Incoming, rpc, []Incoming) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
	defer cancel()
	var before []Incoming
	for {
		select {
		case in, ok := <-c.Incoming():
			if !ok {
				t.Fatalf("Incoming closed while waiting for id %d: Err %v", id, c.Err())
			}
			var m rpc
			if err := json.Unmarshal(in.Msg, &m); err != nil {
				t.Fatalf("got a message that is not JSON-RPC: %q: %v", clip(in.Msg, 300), err)
			}
			if m.Method == "" && string(m.ID) == fmt.Sprint(id) {
				return in, m, before
			}
			before = append(before, in)
		case <-ctx.Done():
			t.Fatalf("no answer to id %d within %s", id, exchangeTimeout)
		}
	}
}

func send(t *testing.T, c Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), exchangeTimeout)
	defer cancel()
	if err := c.Send(ctx, []byte(msg)); err != nil {
		t.Fatalf("Send %s: %v", clip([]byte(msg), 100), err)
	}
}

// mcpSession runs the basic client conversation against a real server:
// initialize, notifications/initialized, tools/list, ping, tools/call of
// the named tool. It returns the initialize answer.
func mcpSession(t *testing.T, c Conn, tool, args, wantText string) Incoming {
	t.Helper()
	send(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"replayctl-test","version":"0"}}}`)
	initIn, init, _ := await(t, c, 1)
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(init.Result, &ir); err != nil || ir.ProtocolVersion == "" {
		t.Fatalf("initialize: got %s, want a result with a protocolVersion", initIn.Msg)
	}
	send(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	send(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	_, list, _ := await(t, c, 2)
	if !strings.Contains(string(list.Result), `"`+tool+`"`) {
		t.Fatalf("tools/list: got %s, want a tool named %s", clip(list.Result, 500), tool)
	}

	send(t, c, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if _, ping, _ := await(t, c, 3); ping.Error != nil || string(ping.Result) != "{}" {
		t.Fatalf("ping: got result %s error %v, want {}", ping.Result, ping.Error)
	}

	send(t, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
	_, call, _ := await(t, c, 4)
	if call.Error != nil || !strings.Contains(string(call.Result), wantText) {
		t.Fatalf("tools/call %s: got result %s error %v, want text %q", tool, call.Result, call.Error, wantText)
	}
	return initIn
}
