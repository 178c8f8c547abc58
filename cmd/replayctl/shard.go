package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// MaxLocalShards bounds --local-shards: each shard is a process.
const MaxLocalShards = 256

// parseShard reads --shard's "I/N": shard I (from 0) of N.
func parseShard(s string) (i, n int, err error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usageError("--shard %q: want I/N, shard I (from 0 to N-1) of N, e.g. --shard 0/4 … --shard 3/4", s)
	}
	return i, n, nil
}

// shardRun is one shard process of a local run.
type shardRun struct {
	index  int
	report string // the JSON report it writes
	err    error  // how the process ended, nil for exit 0
	code   int    // its exit status; -1 when a signal ended it
}

// checkLocalShards refuses what --local-shards cannot do, before anything
// is opened.
func checkLocalShards(cmd *cobra.Command, args []string, f runFlags) error {
	n := f.localShards
	switch {
	case n < 1 || n > MaxLocalShards:
		return usageError("--local-shards %d: want 1 to %d shard processes", n, MaxLocalShards)
	case cmd.Flags().Changed("shard"):
		return usageError("--local-shards starts the shards itself: leave out --shard")
	case len(f.outs) > 0:
		return usageError("--out is not supported with --local-shards yet: give each shard its own stream by running them with --shard")
	case f.metrics.addr != "":
		return usageError("--metrics is not supported with --local-shards yet: run the shards with --shard I/N, each with its own --metrics ADDR")
	case args[0] == "-":
		return usageError("--local-shards: the tape cannot be read from stdin: every shard reads it; give a file")
	}
	return nil
}

// runLocalShards replays args as n shard processes of this replayctl on
// this machine — the same arguments plus --shard i/n, each writing a JSON
// report to a temporary folder — waits for them all, and shows the merged
// report, its thresholds judged on the merged figures. A shard that ended
// without a report is named, and fails the run.
//
// seed, when not nil, is the seed this process picked at random (chaos, a
// random order): every shard is given it, so that they decide the faults
// and the order as one run would.
func (a *app) runLocalShards(cmd *cobra.Command, args []string, f runFlags, seed *int64) error {
	n := f.localShards
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("local shards: find this replayctl: %w", err)
	}
	dir := f.shardDir
	if dir == "" {
		dir, err = os.MkdirTemp("", "replayctl-shards-")
		if err != nil {
			return fmt.Errorf("local shards: %w", err)
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError("--shard-reports %s: %v", dir, err)
	}
	base := shardArgs(cmd, args)
	if seed != nil {
		base = append(base, "--seed="+strconv.FormatInt(*seed, 10))
	}
	runs := make([]*shardRun, n)
	var wg sync.WaitGroup
	for i := range n {
		s := &shardRun{index: i, report: filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.json", i, n))}
		runs[i] = s
		// A report left by an earlier run must not stand in for this one's.
		if err := os.Remove(s.report); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("local shards: %w", err)
		}
		argv := append(append([]string{}, base...), "--shard="+strconv.Itoa(i)+"/"+strconv.Itoa(n), "--report="+s.report, "--quiet")
		argv = append(argv, shardTail(cmd, args)...)
		c := exec.CommandContext(cmd.Context(), self, argv...)
		c.Stdout = nil // the summary is the merged one
		// Interrupted, a shard stops as replayctl does on Ctrl-C and
		// writes the report of what it replayed; one that has not
		// ended 10 s later is killed.
		c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
		c.WaitDelay = 10 * time.Second
		c.Stderr = a.errOut
		if err := c.Start(); err != nil {
			s.err, s.code = err, -1
			continue
		}
		fmt.Fprintf(a.errOut, "local shards: shard %d/%d started (pid %d)\n", i, n, c.Process.Pid)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.err = c.Wait()
			s.code = c.ProcessState.ExitCode()
		}()
	}
	wg.Wait()
	return a.mergeLocalShards(cmd, args, runs, f)
}

// mergeLocalShards merges the reports the shards wrote and shows the
// result; shards without a report are named in it, and fail it.
func (a *app) mergeLocalShards(cmd *cobra.Command, args []string, runs []*shardRun, f runFlags) error {
	n := len(runs)
	var reports []*report.Report
	var dead []string
	badInput := false
	for _, s := range runs {
		r, err := report.Read(s.report)
		if err != nil {
			why := "exit status " + strconv.Itoa(s.code)
			if s.err != nil {
				why = s.err.Error()
			}
			dead = append(dead, fmt.Sprintf("shard %d/%d ended without a report (%s)", s.index, n, why))
			badInput = badInput || s.code == exitBadInput
			continue
		}
		reports = append(reports, r)
	}
	if len(reports) == 0 {
		code := exitFailed
		if badInput {
			code = exitBadInput // each shard said why on stderr
		}
		return &exitError{code: code, err: errors.New(strings.Join(dead, "; "))}
	}
	rep, err := report.Merge(reports)
	if err != nil {
		return fmt.Errorf("local shards: merge: %w", err)
	}
	if len(dead) > 0 {
		rep.Abort(strings.Join(dead, "; ") + ": its sessions are not in this report")
	}
	a.keepHistory(context.WithoutCancel(cmd.Context()), cmd, args[0], f.history, rep)
	if err := a.showReport(cmd.OutOrStdout(), rep, f.output, nil, f.reports); err != nil {
		return err
	}
	if cmd.Context().Err() != nil {
		return &exitError{code: exitInterrupted, err: context.Cause(cmd.Context())}
	}
	// A shard whose target failed (it said why on stderr) fails the run
	// as one process would: exit 3.
	for _, s := range runs {
		if s.code == exitTarget {
			return &exitError{code: exitTarget, err: fmt.Errorf("local shards: shard %d/%d: the target failed (its error is above)", s.index, n)}
		}
	}
	if !rep.Passed() {
		return errReported
	}
	return nil
}

// shardArgs are the arguments a shard process gets: the command, the
// flags given (but --local-shards, --report, --quiet and the output
// format: the runner shows and writes the merged report; and the run
// store's flags: the runner keeps the merged run) and the tape.
func shardArgs(cmd *cobra.Command, args []string) []string {
	skip := map[string]bool{"local-shards": true, "shard-reports": true, "report": true, "quiet": true, "output": true}
	// The run store and its gates are the runner's: it keeps the merged
	// run once; a shard keeps none (--history none).
	for _, name := range historyFlagNames {
		skip[name] = true
	}
	argv := []string{"run"}
	add := func(fl *pflag.Flag) {
		if skip[fl.Name] {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				argv = append(argv, "--"+fl.Name+"="+v)
			}
			return
		}
		argv = append(argv, "--"+fl.Name+"="+fl.Value.String())
	}
	cmd.Flags().Visit(add) // the command's own and the inherited ones
	return append(argv, "--history="+noHistory, "--output=json", args[0])
}

// shardTail is the server command after "--", as given.
func shardTail(cmd *cobra.Command, args []string) []string {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		return append([]string{"--"}, args[dash:]...)
	}
	return nil
}

// randomSeed is the seed r picked at random (chaos faults first, else a
// random order), nil when it picked none.
func randomSeed(r *replay.Replay) *int64 {
	if seed, random, ok := r.ChaosSeed(); ok && random {
		return &seed
	}
	if seed, random, ok := r.OrderSeed(); ok && random {
		return &seed
	}
	return nil
}
