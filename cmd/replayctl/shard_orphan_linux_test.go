package main

import (
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestLocalShardsDieWithTheRun: the shard processes of a run with
// --local-shards stop when the run is killed (kill -9: no orderly stop),
// rather than going on sending load with no one to report to.
func TestLocalShardsDieWithTheRun(t *testing.T) {
	p := startProc(t, binary, "run", "examples/quickstart.jsonl", "--local-shards", "2", "--sessions", "4", "--speed", "0.01x")
	started := regexp.MustCompile(`shard \d+/2 started \(pid (\d+)\)`)
	var pids []int
	deadline := time.Now().Add(30 * time.Second)
	for len(pids) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no two shards started within 30s\nstderr:\n%s", p.stderr)
		}
		select {
		case <-p.done:
			t.Fatalf("run exited (%d) before its shards started\nstderr:\n%s", p.code, p.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		pids = pids[:0]
		for _, m := range started.FindAllStringSubmatch(p.stderr.String(), -1) {
			pid, _ := strconv.Atoi(m[1])
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("shard pid %d still runs 5s after its run was killed", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
