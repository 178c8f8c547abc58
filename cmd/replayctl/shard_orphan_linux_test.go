package main

import (
	"fmt"
	"regexp"
	"slices"
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
	logStderrOnFailure(t, p)
	var pids []int
	pollUntil(t, 30*time.Second, func() bool {
		select {
		case <-p.done:
			t.Fatalf("run exited (%d) before its shards started", p.code)
		default:
		}
		pids = pids[:0]
		for _, m := range started.FindAllStringSubmatch(p.stderr.String(), -1) {
			pid, _ := strconv.Atoi(m[1])
			pids = append(pids, pid)
		}
		return len(pids) >= 2
	}, "two shards to start")
	for _, pid := range pids {
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// A bound on a wait, not on how fast they stop: at 0.01x a shard left
	// alive goes on for minutes.
	pollUntil(t, 30*time.Second, func() bool { return !slices.ContainsFunc(pids, alive) },
		fmt.Sprintf("shard pids %v to end after their run was killed", pids))
}
