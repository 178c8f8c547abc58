package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/transport"
)

// TestShardWaitsForALateCoordinator: a shard started before its
// coordinator listens (a Kubernetes coordinator pod still pulling its
// image) says what it waits for, keeps retrying for --coordinator-wait,
// and once the coordinator listens on that address, runs and exits 0.
// The coordinator starts when the shard has said it waits: a condition.
func TestShardWaitsForALateCoordinator(t *testing.T) {
	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 2))
	const token = "late-token"
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	shard := startShard(t, "http://"+addr, token, 0, tapePath, "--target", srv.srv.URL, "--sessions", "2", "--speed", "fast", "--shards", "1", "--coordinator-wait", "2m")
	deadline := time.After(30 * time.Second)
	for !strings.Contains(shard.err.String(), "waiting for the coordinator at http://"+addr) {
		select {
		case <-shard.done:
			t.Fatalf("the shard ended (exit %d) before its coordinator started:\n%s", shard.code, shard.err.String())
		case <-deadline:
			t.Fatalf("the shard did not say it waits in 30 s:\n%s", shard.err.String())
		case <-shard.err.Wrote():
		}
	}
	if got := shard.err.String(); !strings.Contains(got, "connection refused") || !strings.Contains(got, "retrying for up to 2m0s (--coordinator-wait)") {
		t.Errorf("stderr %q: want why (connection refused) and for how long", got)
	}
	c, _ := startCoordinator(t, token, "--shards", "1", "--listen", addr, "--start-lead", "0s", "-o", "json")
	if code := shard.wait(t); code != 0 {
		t.Errorf("shard: exit %d, want 0\n%s", code, shard.err.String())
	}
	if code := c.wait(t); code != 0 {
		t.Errorf("coordinate: exit %d, want 0\n%s", code, c.err.String())
	}
}
