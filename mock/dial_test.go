package mock

import (
	"errors"
	"testing"

	"github.com/replayctl/replayctl/tape"
)

// TestDialAfterStreamedReadFailed: a session that dials the mock after
// its streamed read of the replayed tape met a bad line gets a
// connection, as one that dialled before the read failed does, and that
// connection's first request fails with the tape's own error — the
// error the replay's reader gives, file and line — not with a failed
// connect, which the replay reports as the target's failure (the race
// of TestMockTapeErrorMidway in engine: 16 failures in 30 runs, then
// re-tagged in engine.Run).
func TestDialAfterStreamedReadFailed(t *testing.T) {
	body := append(callsTape(3), "{\"type\":\"message\",\"seq\":\n"...) // line 11
	path := tapeFile(t, append(body, callsTape(1)[len(`{"type":"header"`):]...))
	m, next, end := startStream(t, path)
	var want error
	for want == nil {
		_, want = next()
	}
	var wantTE *tape.Error
	if !errors.As(want, &wantTE) || wantTE.Line != 11 {
		t.Fatalf("the streamed read ended with %v, want the tape's error at line 11", want)
	}
	c, err := m.Dial(t.Context(), "s1")
	if err != nil {
		end()
		t.Fatalf("Dial after the streamed read failed: %v, want a connection whose requests fail with the tape's error", err)
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	err = c.Send(t.Context(), []byte(init))
	c.Close()
	end()
	var te *tape.Error
	if !errors.As(err, &te) || err.Error() != want.Error() {
		t.Errorf("Send after the read failed: %v, want the tape's error: %v", err, want)
	}
}
