package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/coord"
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
// this machine, coordinated as pods of a Kubernetes Indexed Job are: a
// coordinator on loopback (an address of its own, a random token), and n
// processes started with the same arguments (the flags given, plus
// --shards N and --coordinator URL) and, in their environment, each its
// index ($REPLAYCTL_SHARD_INDEX) and the token. It waits for them all and
// shows the coordinator's merged report, its thresholds judged on the
// merged figures. A shard that ended without a report is named, and fails
// the run.
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
	if f.shardDir != "" {
		if err := a.makeOutDir("--shard-reports", f.shardDir); err != nil {
			return err
		}
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return fmt.Errorf("local shards: %w", err)
	}
	secret := hex.EncodeToString(token)
	a.redact([]string{secret})
	srv, err := coord.New(n, append(f.coord.options(secret, nil), coord.Logger(a.log))...)
	if err != nil {
		return usageError("%v", err)
	}
	ln, err := listenTCP("--local-shards", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	argv := shardArgs(cmd, args)
	if seed != nil {
		argv = append(argv, "--seed="+strconv.FormatInt(*seed, 10))
	}
	argv = append(argv, "--shards="+strconv.Itoa(n), "--coordinator=http://"+ln.Addr().String(), "--quiet")
	argv = append(argv, shardTail(cmd, args)...)
	rep, runs, err := srv.RunLocal(cmd.Context(), ln, self, argv,
		coord.LocalToken(secret), coord.LocalStderr(a.errOut),
		coord.OnStarted(func(i, pid int) { fmt.Fprintf(a.errOut, "local shards: shard %d/%d started (pid %d)\n", i, n, pid) }))
	if err != nil {
		for _, s := range runs {
			if s.Code == exitBadInput {
				return &exitError{code: exitBadInput, err: coordError(cmd.Context(), err)} // each shard said why on stderr
			}
		}
		return coordError(cmd.Context(), err)
	}
	if f.shardDir != "" {
		if err := writeShardReports(srv, n, f.shardDir); err != nil {
			return err
		}
	}
	bad := badInput(srv, n)
	if bad != nil && rep.Summary.Sent == 0 {
		return bad // nothing was replayed (a bad tape): its error alone, as one process
	}
	return a.showLocalShards(cmd, args, runs, rep, f, bad)
}

// badInput is the bad input a local shard met in its run (every shard
// reads the same tape: a bad line stops them alike), from the first
// such shard's report, to be said once (each kept quiet, see
// errSaidByRunner); nil when none did.
func badInput(srv *coord.Server, n int) error {
	for i := range n {
		if r := srv.Final(i); r != nil && r.Summary.Stopped == report.StopBadInput {
			return &exitError{code: exitBadInput, err: errors.New(r.Summary.Aborted)}
		}
	}
	return nil
}

// showLocalShards keeps and shows the merged report of a local run, and
// ends it as one process would have: exit 3 when a shard's target
// failed, exit 2 with bad, the bad input a shard met, when not nil.
func (a *app) showLocalShards(cmd *cobra.Command, args []string, runs []coord.Process, rep *report.Report, f runFlags, bad error) error {
	n := len(runs)
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
		if s.Code == exitTarget {
			return &exitError{code: exitTarget, err: fmt.Errorf("local shards: shard %d/%d: the target failed (its error is above)", s.Index, n)}
		}
	}
	if bad != nil {
		return bad
	}
	if !rep.Passed() {
		return errReported
	}
	return nil
}

// shardArgs are the arguments a shard process gets: the command, the
// flags given (but those of shardOnlyFlags: the runner shows and writes
// the merged report, and coordinates; and the run store's flags: the
// runner keeps the merged run) and the tape.
func shardArgs(cmd *cobra.Command, args []string) []string {
	skip := maps.Clone(shardOnlyFlags)
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
