package testtape

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Record plays msgs to a live target as a client would (record.Script) and
// returns the path of the tape it recorded, in a test temp folder, with
// transportName in its header. It fails the test on any error.
func Record(tb testing.TB, d transport.Dialer, transportName string, msgs [][]byte) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	conn, err := d.Dial(ctx, "s1")
	if err != nil {
		tb.Fatalf("testtape: dial: %v", err)
	}
	defer conn.Close()
	path := filepath.Join(tb.TempDir(), "recorded.jsonl")
	w, err := tape.Create(path, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion, Transport: transportName})
	if err != nil {
		tb.Fatal(err)
	}
	// Each answer's bound: a stdio server's first answer waits for its
	// start (server-everything's node start took more than 30s at a load
	// average of 50 on two cores).
	if err := record.Script(ctx, conn, "s1", msgs, w, 2*time.Minute); err != nil {
		tb.Fatalf("testtape: record: %v", err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}
