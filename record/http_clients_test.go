package record_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// TestHTTPProxySDKClients runs replayctl's two test clients (the go-sdk
// and the TypeScript SDK's, as programs) through the proxy, 4 sessions at
// once: each client's transcript is the one it gets straight from the
// server, byte for byte; the tape has no trace of the Authorization
// header, holds one session per client session, and replays against the
// server with zero failures.
func TestHTTPProxySDKClients(t *testing.T) {
	if testing.Short() {
		t.Skip("real clients and servers")
	}
	cases := []struct {
		name     string
		client   testclient.Client
		protocol string
		upstream func(testing.TB) string
		sessions int // on the tape
	}{
		{"go-sdk/go-sdk server 2025-11-25", testclient.Go, "2025-11-25", testserver.GoSDKHTTP, 4},
		// Four sessions of one program on one host, with no session ids:
		// their JSON-RPC ids tell them apart (see lanes).
		{"go-sdk/go-sdk stateless 2026-07-28", testclient.Go, "2026-07-28", testserver.GoSDKHTTPStateless, 4},
		{"typescript/go-sdk server", testclient.TypeScript, "", testserver.GoSDKHTTP, 4},
		{"typescript/server-everything", testclient.TypeScript, "", everythingHTTP, 4},
		{"go-sdk/server-everything", testclient.Go, "2025-11-25", everythingHTTP, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			upstream := c.upstream(t)
			opts := testclient.Options{Protocol: c.protocol, Clients: 4, Headers: []string{"Authorization=Bearer " + secretToken}, Timeout: time.Minute}
			direct := testclient.RunClient(t, c.client, testclient.HTTP(upstream), opts)
			srv, p, path := startProxy(t, upstream)
			u := strings.TrimPrefix(upstream, "http://")
			proxied := testclient.RunClient(t, c.client, testclient.HTTP(srv.URL+u[strings.Index(u, "/"):]), opts)
			if direct.Status != 0 || proxied.Status != 0 {
				t.Fatalf("exit %d direct, %d through the proxy\n%s\n%s", direct.Status, proxied.Status, direct.Stdout, proxied.Stdout)
			}
			if d := testclient.Diff(direct.Steps, proxied.Steps); d != nil {
				t.Fatalf("the client saw something else through the proxy:\n%s", strings.Join(d, "\n"))
			}
			p.Stop()
			srv.Close()
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), secretToken) {
				t.Fatal("the Authorization header is on the tape")
			}
			_, msgs := readTape(t, path)
			sessions := map[string]bool{}
			var requests int64
			for _, m := range msgs {
				sessions[m.Session] = true
				if jm, err := jsonrpc.Parse(m.Msg); err == nil && jm.Kind == jsonrpc.KindRequest && m.Dir == tape.C2S {
					requests++
				}
			}
			if len(sessions) != c.sessions {
				t.Errorf("%d sessions on the tape, want %d", len(sessions), c.sessions)
			}
			rep, err := replay.Run(t.Context(), path, replay.WithSpeed(replay.Fast()), replay.Against(replay.HTTP(upstream)))
			if rep == nil {
				t.Fatal(err)
			}
			t.Logf("%d messages, %d requests, %d checked", len(msgs), requests, rep.Validation.Checked)
			if err != nil || !rep.Passed() || rep.Validation.Failed != 0 || rep.Validation.Checked != requests || requests < 4*5 {
				t.Fatalf("replay: err %v; passed %v, %d checked, %d failed, warnings %q; failures %+v, errors %+v",
					err, rep.Passed(), rep.Validation.Checked, rep.Validation.Failed, rep.Summary.Warnings, rep.Validation.Failures, rep.Errors)
			}
		})
	}
}

// everythingHTTP is server-everything over Streamable HTTP; the test is
// skipped when it is not installed.
func everythingHTTP(t testing.TB) string {
	testserver.NeedEverything(t)
	return testserver.EverythingHTTP(t)
}
