package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestServeChaosSparesHandshake: serve's chaos, as run's, leaves the
// handshake alone: with every answer faulted (error=1) the client still
// gets its initialize answer, and the calls after it get the faults.
func TestServeChaosSparesHandshake(t *testing.T) {
	recorded := recordedTape(t, "2025-11-25")
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}},"clientInfo":{"name":"replayctl-testtape","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
	}
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`, 10+i))
	}
	res := replayctlIn(t, strings.Join(lines, "\n")+"\n", "serve", "--repeat", "--chaos", "error=1", "--seed", "7", recorded)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	answers := map[int]map[string]json.RawMessage{}
	for _, l := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var m map[string]json.RawMessage
		var id int
		if json.Unmarshal([]byte(l), &m) != nil || json.Unmarshal(m["id"], &id) != nil {
			continue // a notification
		}
		answers[id] = m
	}
	if _, ok := answers[1]["result"]; !ok {
		t.Errorf("the initialize answer was faulted: %s\nstdout:\n%s", answers[1]["error"], res.stdout)
	}
	for id := 10; id < 13; id++ {
		if e := string(answers[id]["error"]); e == "" || strings.Contains(e, "-32090") {
			t.Errorf("call %d: no fault with error=1:\n%s", id, res.stdout)
		}
	}
}
