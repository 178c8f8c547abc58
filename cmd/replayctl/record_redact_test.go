package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testclient"
	"github.com/replayctl/replayctl/internal/testleak"
	"github.com/replayctl/replayctl/internal/testserver"
)

// e2eSecretVar holds the secret the redaction tests pass to the clients.
const e2eSecretVar = "REPLAYCTL_E2E_SECRET"

// TestRecordRedactsSecrets records both real clients, each passing a secret
// in an Authorization header (HTTP) and in tool arguments (an echo call
// with the secret as its text and as api_key), through `replayctl record
// --redact-env`, over Streamable HTTP and over stdio in front of
// server-everything (whose echo sends the secret back): the secret is
// nowhere in the tape, in any form testleak knows (raw, JSON or URL
// escaped, base64, …), and the tape replays against the same server with
// zero failures, the secret put back from the environment.
func TestRecordRedactsSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("records real clients and servers")
	}
	const secret = "s3cr3t-Zq81-replayctl-e2e"
	t.Setenv(e2eSecretVar, secret)
	for _, c := range e2eClients {
		t.Run(string(c)+"/http", func(t *testing.T) {
			upstream := testserver.EverythingHTTP(t)
			path := filepath.Join(t.TempDir(), "rec.jsonl")
			rec := startHTTPRecorder(t, upstream, path, "--redact-env", e2eSecretVar)
			o := testclient.Options{Protocol: e2eHTTPServers[0].protocol[c], Timeout: e2eTimeout,
				Headers: []string{"Authorization=Bearer " + secret}, SecretArg: secret,
				NoRoots: e2eHTTPOptions(c, "everything", "").NoRoots} // see e2eHTTPOptions
			run := testclient.RunClient(t, c, testclient.HTTP(rec.url), o)
			rec.stop(t)
			mustSucceed(t, "through record", run)
			checkRedacted(t, path, secret, run)
			_, msgs := loadWholeTape(t, path)
			notes := c != testclient.TypeScript // see TestRecordE2EHTTP
			replayClean(t, path, msgs, notes, "--target", upstream)
		})
		t.Run(string(c)+"/stdio", func(t *testing.T) {
			argv := testserver.Everything(t)
			path := filepath.Join(t.TempDir(), "rec.jsonl")
			run := recordStdioClient(t, path, c, argv, testclient.Options{SecretArg: secret}, "--redact-env", e2eSecretVar)
			mustSucceed(t, "through record", run)
			checkRedacted(t, path, secret, run)
			_, msgs := loadWholeTape(t, path)
			replayClean(t, path, msgs, true, append([]string{"--"}, argv...)...)
		})
	}
}

// checkRedacted fails the test if the secret can be found in the tape at
// path, or if the tape has no marker where it was (the client did send it:
// its transcript holds the echo).
func checkRedacted(t *testing.T, path, secret string, run testclient.Run) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if how, found := testleak.Find(string(b), secret); found {
		t.Fatalf("the secret is in the tape %s (%s)", path, how)
	}
	if !strings.Contains(run.Stdout, secret) {
		t.Fatalf("the client's transcript does not hold the secret: it was never sent, the test proves nothing\n%s", run.Stdout)
	}
	for _, marker := range []string{"[redacted:env:" + e2eSecretVar + "]", `"redacted_env":"` + e2eSecretVar + `"`} {
		if !strings.Contains(string(b), marker) {
			t.Errorf("the tape has no %s", marker)
		}
	}
}
