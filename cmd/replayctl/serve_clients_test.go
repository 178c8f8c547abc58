package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testserver"
)

// TestServeTestClientsGetTheirTapesBack: each test client (the Go SDK's in
// both revisions, the TypeScript SDK's) is recorded through replayctl
// record against the Go SDK conformance server, then runs the same
// script against replayctl serve of that tape, over stdio and over HTTP:
// its transcript (every result, byte for byte) must be the recorded run's.
// The "changed" script then makes loud misses, and --strict exits 1.
func TestServeTestClientsGetTheirTapesBack(t *testing.T) {
	server := testserver.GoSDK(t)
	for _, tc := range []struct {
		client   testclient.Client
		protocol string
	}{
		{testclient.TypeScript, ""},
		{testclient.Go, "2025-11-25"},
		{testclient.Go, "2026-07-28"},
	} {
		t.Run(string(tc.client)+"/"+tc.protocol, func(t *testing.T) {
			opts := testclient.Options{Protocol: tc.protocol} // one client: each starts its own recording proxy
			path := filepath.Join(t.TempDir(), "recorded.jsonl")
			rec := testclient.RunClient(t, tc.client,
				testclient.Stdio(append([]string{binary, "record", "--quiet", "-o", path, "--"}, server...)...), opts)
			if rec.Status != 0 {
				t.Fatalf("recording: the client's exit status %d:\n%s\n%s", rec.Status, rec.Stdout, rec.Stderr)
			}

			stdio := testclient.RunClient(t, tc.client, testclient.Stdio(binary, "serve", "--strict", path), opts)
			if d := testclient.Diff(rec.Steps, stdio.Steps); d != nil || stdio.Status != 0 {
				t.Errorf("over stdio (status %d), the transcript differs from the recorded run's:\n%s\nstderr:\n%s",
					stdio.Status, strings.Join(d, "\n"), stdio.Stderr)
			}

			p := startServe(t, "--strict", path)
			http := testclient.RunClient(t, tc.client, testclient.HTTP(p.url), opts)
			if d := testclient.Diff(rec.Steps, http.Steps); d != nil || http.Status != 0 {
				t.Errorf("over HTTP (status %d), the transcript differs from the recorded run's:\n%s\nstderr:\n%s",
					http.Status, strings.Join(d, "\n"), http.Stderr)
			}
			changed := opts
			changed.Changed = true
			ch := testclient.RunClient(t, tc.client, testclient.HTTP(p.url), changed)
			loud := false
			for _, s := range ch.Steps {
				if !s.OK && strings.Contains(string(s.Error), "closest recorded") {
					loud = true
				}
			}
			if ch.Status != 1 || !loud {
				t.Errorf("the changed script: status %d, want 1 with a step failing on a miss that names the closest recorded request:\n%s", ch.Status, ch.Stdout)
			}
			code, stderr := p.stop(t)
			if code != 1 || !strings.Contains(stderr, "miss: session") {
				t.Errorf("serve --strict after misses: exit %d, want 1; stderr:\n%s", code, clip(stderr, 3000))
			}
		})
	}
}
