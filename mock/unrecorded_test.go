package mock

import (
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// TestUnrecordedDiscoverOnSessionTape: a session-based tape (2025-11-25
// and earlier: an initialize handshake, no server/discover) is served as
// such a server answers a server/discover it does not know: method not
// found (-32601), not a miss, before the session is bound and after. A
// client that probes with it (the go-sdk's by default) then falls back to
// initialize. A tape without initialize says nothing of its revision:
// there server/discover stays a miss.
func TestUnrecordedDiscoverOnSessionTape(t *testing.T) {
	const (
		initReq  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
		initRes  = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
		listReq  = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		listRes  = `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`
		discover = `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	)
	line := func(seq int, dir, msg string) string {
		return `{"type":"message","seq":` + string(rune('0'+seq)) + `,"t_us":0,"session":"s1","dir":"` + dir + `","msg":` + msg + "}\n"
	}
	header := `{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http"}` + "\n"
	session := header + line(0, "c2s", initReq) + line(1, "s2c", initRes) + line(2, "c2s", listReq) + line(3, "s2c", listRes)
	noHandshake := header + line(0, "c2s", listReq) + line(1, "s2c", listRes)

	notFound := func(t *testing.T, ans string) {
		t.Helper()
		m := mustParse(t, []byte(ans))
		if m.Kind != jsonrpc.KindError || !strings.Contains(string(m.Error()), `"code":-32601`) || string(m.ID) != `"d"` {
			t.Errorf("server/discover: got %s, want a -32601 method not found error with id \"d\"", ans)
		}
	}
	t.Run("session-based", func(t *testing.T) {
		srv, err := NewServer(tape.Bytes("session", []byte(session)))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := srv.Open(t.Context(), transport.SessionInfo{ID: "probe"})
		notFound(t, askOne(t, s, discover)) // unbound: the client's first request
		s.Close()
		s, _ = srv.Open(t.Context(), transport.SessionInfo{ID: "live"})
		defer s.Close()
		if got := answered(t, askOne(t, s, initReq)); got == "miss" {
			t.Fatalf("initialize after the probe: a miss")
		}
		notFound(t, askOne(t, s, discover)) // bound
		if got := askOne(t, s, listReq); !strings.Contains(got, `"tools":[]`) {
			t.Errorf("tools/list: got %s, want the recorded answer", got)
		}
		if m := srv.Misses(); len(m) != 0 {
			t.Errorf("misses %v, want none", m)
		}
	})
	t.Run("no handshake", func(t *testing.T) {
		srv, err := NewServer(tape.Bytes("bare", []byte(noHandshake)))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := srv.Open(t.Context(), transport.SessionInfo{ID: "t"})
		defer s.Close()
		if got := answered(t, askOne(t, s, discover)); got != "miss" {
			t.Errorf("server/discover: got %s, want a miss", got)
		}
	})
}

// TestUnrecordedInitializeOnStatelessTape: a stateless tape (2026-07-28:
// server/discover recorded, no initialize) is served to a session-based
// client (the TypeScript SDK's, 2025-11-25 at most) as the server
// recorded answers its initialize: when its recorded server/discover
// lists a session-based revision, with that revision (the client's if
// listed) and the recorded capabilities, serverInfo and instructions;
// when it lists none, with method not found, as a 2026-only server.
func TestUnrecordedInitializeOnStatelessTape(t *testing.T) {
	const discoverReq = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	discoverRes := func(versions string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"2.0.0"}},"ttlMs":0,"cacheScope":"public","supportedVersions":` + versions + `,"capabilities":{"tools":{"listChanged":true}},"instructions":"be kind"}}`
	}
	line := func(seq int, dir, msg string) string {
		return `{"type":"message","seq":` + string(rune('0'+seq)) + `,"t_us":0,"session":"s1","dir":"` + dir + `","msg":` + msg + "}\n"
	}
	header := `{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http"}` + "\n"
	initialize := func(version string) string {
		return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"ts","version":"1"}}}`
	}
	cases := []struct {
		name, versions, asks, want string
	}{
		{"the client's revision listed", `["2026-07-28","2025-11-25","2025-06-18"]`, "2025-06-18",
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"srv","version":"2.0.0"},"instructions":"be kind"}}`},
		{"the latest session-based one listed", `["2026-07-28","2025-11-25"]`, "2024-11-05",
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"srv","version":"2.0.0"},"instructions":"be kind"}}`},
		{"2026-07-28 only", `["2026-07-28"]`, "2025-11-25",
			`{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := header + line(0, "c2s", discoverReq) + line(1, "s2c", discoverRes(c.versions))
			srv, err := NewServer(tape.Bytes("stateless", []byte(src)))
			if err != nil {
				t.Fatal(err)
			}
			s, _ := srv.Open(t.Context(), transport.SessionInfo{ID: "ts"})
			defer s.Close()
			if got := askOne(t, s, initialize(c.asks)); got != c.want {
				t.Errorf("initialize %s:\ngot  %s\nwant %s", c.asks, got, c.want)
			}
			if m := srv.Misses(); len(m) != 0 {
				t.Errorf("misses %v, want none", m)
			}
		})
	}
}
