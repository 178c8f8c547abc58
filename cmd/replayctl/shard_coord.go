package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/coord"
	"github.com/replayctl/replayctl/replay"
)

// shardIndexFromEnv is the shard's index for --shards N: $REPLAYCTL_SHARD_INDEX,
// else $JOB_COMPLETION_INDEX (Kubernetes sets it in an Indexed Job's pods).
func shardIndexFromEnv(n int) (int, error) {
	name := coord.EnvIndex
	v, ok := os.LookupEnv(name)
	if !ok {
		name = coord.EnvJobIndex
		v, ok = os.LookupEnv(name)
	}
	if !ok {
		return 0, usageError("--shards %d: the shard's index comes from $%s (or $%s in a Kubernetes Indexed Job), and neither is set; set one, or give --shard I/N", n, coord.EnvIndex, coord.EnvJobIndex)
	}
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || i < 0 || i >= n {
		return 0, usageError("$%s=%q with --shards %d: want an index from 0 to %d", name, v, n, n-1)
	}
	return i, nil
}

// shardOf is the shard --shard or --shards gives: index, count, and
// whether the run is sharded at all.
func shardOf(cmd *cobra.Command, f runFlags) (i, n int, sharded bool, err error) {
	switch {
	case f.shard != "" && cmd.Flags().Changed("shards"):
		return 0, 0, false, usageError("give --shard I/N or --shards N (the index from $%s), not both", coord.EnvIndex)
	case f.shard != "":
		i, n, err = parseShard(f.shard)
		return i, n, err == nil, err
	case cmd.Flags().Changed("shards"):
		if f.shards < 1 {
			return 0, 0, false, usageError("--shards %d: want 1 or more", f.shards)
		}
		i, err = shardIndexFromEnv(f.shards)
		return i, f.shards, err == nil, err
	}
	return 0, 0, false, nil
}

// shardOnlyFlags are the run flags that may differ between the shards of
// one run (and their runner's): left out of the fingerprint, and of the
// shards' arguments.
var shardOnlyFlags = map[string]bool{
	"shard": true, "shards": true, "coordinator": true, "coordinator-wait": true, "local-shards": true, "shard-reports": true,
	"report": true, "output": true, "quiet": true, "verbose": true, "out": true, "out-buffer": true,
	"abort-on-fail": true, "interval": true, "heartbeat-timeout": true, "start-lead": true, "register-timeout": true,
}

// fingerprint is the digest of what every shard of a run must share: the
// tape's bytes, the config file's, the run flags (but each shard's own)
// and the server command.
func fingerprint(cmd *cobra.Command, args []string, cfgFile string) (string, error) {
	h := sha256.New()
	for _, p := range []string{args[0], cfgFile} {
		if p == "" {
			fmt.Fprintf(h, "none\x00")
			continue
		}
		fl, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, fl)
		fl.Close()
		if err != nil {
			return "", fmt.Errorf("read %s: %w", p, err)
		}
		fmt.Fprintf(h, "\x00")
	}
	var flags []string
	inherited := cmd.InheritedFlags() // logging and colour: each process's own
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if shardOnlyFlags[fl.Name] || slices.Contains(historyFlagNames, fl.Name) || inherited.Lookup(fl.Name) != nil {
			return
		}
		v := fl.Value.String()
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), "\x01")
		}
		flags = append(flags, fl.Name+"="+v)
	})
	slices.Sort(flags)
	fmt.Fprintf(h, "%s\x00%s", strings.Join(flags, "\x00"), strings.Join(shardTail(cmd, args), "\x00"))
	return hex.EncodeToString(h.Sum(nil)), nil
}

// joinCoordinator registers the shard i/n of r with the coordinator at
// --coordinator (coord.Join), waits for the common start and anchors r
// to it. It returns the joined shard (its Context is the one to run r
// in), or nil when the coordinator told the shard not to run (why is
// printed).
func (a *app) joinCoordinator(ctx context.Context, cmd *cobra.Command, args []string, f runFlags, r *replay.Replay, stream *coord.Stream, i, n int) (*coord.Shard, error) {
	cfgFile, _ := configPath(cmd, f.configPath)
	fp, err := fingerprint(cmd, args, cfgFile)
	if err != nil {
		return nil, usageError("--coordinator: %v", err)
	}
	hello := coord.Hello{Index: i, Count: n, Fingerprint: fp, Attempt: uuid.NewString()}
	for _, t := range r.Thresholds() {
		hello.Thresholds = append(hello.Thresholds, t.Expr)
	}
	token := os.Getenv(coord.EnvToken)
	a.redact(append(r.Secrets(), token))
	shard, reply, err := coord.Join(ctx, f.coordinator, token, hello, stream, coord.ReachTimeout(f.coordWait),
		coord.OnWaiting(func(err error) {
			fmt.Fprintf(a.errOut, "shard %d/%d: waiting for the coordinator at %s (%v): retrying for up to %s (--coordinator-wait)\n", i, n, f.coordinator, err, f.coordWait)
		}))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("shard %d/%d: %w", i, n, err) // exit 130
	case errors.Is(err, coord.ErrRefused):
		return nil, &exitError{code: exitBadInput, err: fmt.Errorf("shard %d/%d: %w", i, n, err)}
	case err != nil:
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("shard %d/%d: reach the coordinator (tried for --coordinator-wait %s): %w", i, n, f.coordWait, err)}
	case shard == nil:
		fmt.Fprintf(a.errOut, "shard %d/%d: the coordinator says stop: %s\n", i, n, reply.Reason)
		return nil, nil
	}
	r.StartAt(shard.Start())
	fmt.Fprintf(a.errOut, "shard %d/%d: the common start is %s\n", i, n, shard.Start().UTC().Format("15:04:05.000"))
	return shard, nil
}

// checkCoordinated refuses what a coordinated shard cannot do, and fills
// in --coordinator from $REPLAYCTL_COORDINATOR.
func checkCoordinated(cmd *cobra.Command, args []string, f *runFlags, local bool) error {
	if !cmd.Flags().Changed("coordinator") && !local {
		f.coordinator = os.Getenv(coord.EnvURL)
	}
	for _, name := range []string{"abort-on-fail", "interval", "heartbeat-timeout", "start-lead", "register-timeout"} {
		if cmd.Flags().Changed(name) && !local {
			return usageError("--%s is the coordinator's: give it to replayctl coordinate (or with --local-shards)", name)
		}
	}
	if cmd.Flags().Changed("coordinator-wait") {
		switch {
		case local:
			return usageError("--coordinator-wait is a coordinated shard's: --local-shards starts its own coordinator first; leave it out")
		case f.coordWait <= 0:
			return usageError("--coordinator-wait %s: want a positive duration, e.g. 5m", f.coordWait)
		case f.coordinator == "" && f.shard == "" && !cmd.Flags().Changed("shards"):
			return usageError("--coordinator-wait is how long a coordinated shard waits for its coordinator: give --coordinator URL too")
		}
	}
	if local {
		if cmd.Flags().Changed("coordinator") || cmd.Flags().Changed("shards") {
			return usageError("--local-shards starts its own coordinator and shards: leave out --coordinator and --shards")
		}
		return f.coord.check()
	}
	if f.coordinator == "" {
		return nil
	}
	switch {
	case f.shard == "" && !cmd.Flags().Changed("shards"):
		return usageError("--coordinator %s: give the shard: --shards N (the index from $%s) or --shard I/N", f.coordinator, coord.EnvIndex)
	case !strings.HasPrefix(f.coordinator, "http://") && !strings.HasPrefix(f.coordinator, "https://"):
		return usageError("--coordinator %q: want the coordinator's URL, e.g. http://127.0.0.1:7340", f.coordinator)
	case args[0] == "-":
		return usageError("--coordinator: the tape cannot be read from stdin: every shard must read the same file")
	}
	return nil
}
