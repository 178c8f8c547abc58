package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/coord"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
)

// coordFlags are the flags of `replayctl coordinate` that --local-shards
// shares.
type coordFlags struct {
	abortOnFail     bool
	interval        time.Duration
	heartbeat       time.Duration
	startLead       time.Duration
	registerTimeout time.Duration
}

// addCoordFlags registers the coordinator's timing flags and abort.
func addCoordFlags(cmd *cobra.Command, f *coordFlags) {
	fl := cmd.Flags()
	fl.BoolVar(&f.abortOnFail, "abort-on-fail", false, "stop every shard as soon as a threshold fails on the merged data of the shards (throughput, duration and the load metrics are judged at the end only)")
	fl.DurationVar(&f.interval, "interval", coord.DefaultInterval, "how often each shard streams the histograms of what it measured")
	fl.DurationVar(&f.heartbeat, "heartbeat-timeout", coord.DefaultHeartbeat, "a shard not heard of for this long (no poll open, no call) is named lost; its sessions are left out of the report")
	fl.DurationVar(&f.startLead, "start-lead", coord.DefaultStartLead, "the common start is this long after the last shard registered, so that every shard hears of it in time")
	fl.DurationVar(&f.registerTimeout, "register-timeout", coord.DefaultRegisterTimeout, "the run fails, naming the missing shards, when not every shard has registered within this time")
}

// options are the coordinator's options the flags give.
func (f coordFlags) options(token string, thresholds []report.Threshold) []coord.Option {
	opts := []coord.Option{coord.Token(token), coord.Every(f.interval), coord.Heartbeat(f.heartbeat),
		coord.StartLead(f.startLead), coord.RegisterTimeout(f.registerTimeout), coord.Thresholds(thresholds...)}
	if f.abortOnFail {
		opts = append(opts, coord.AbortOnFail())
	}
	return opts
}

// check refuses durations that mean nothing.
func (f coordFlags) check() error {
	for _, d := range []struct {
		name string
		v    time.Duration
		zero bool
	}{{"--interval", f.interval, false}, {"--heartbeat-timeout", f.heartbeat, false}, {"--start-lead", f.startLead, true}, {"--register-timeout", f.registerTimeout, false}} {
		if d.v < 0 || (d.v == 0 && !d.zero) {
			return usageError("%s %s: want a positive duration, e.g. 1s", d.name, d.v)
		}
	}
	if f.heartbeat <= f.interval {
		return usageError("--heartbeat-timeout %s: want more than --interval %s (each interval is a heartbeat)", f.heartbeat, f.interval)
	}
	return nil
}

type coordinateFlags struct {
	coordFlags
	shards     int
	listen     string
	thresholds []string
	reports    []string
	shardDir   string
	output     string
}

func (a *app) coordinateCommand() *cobra.Command {
	var f coordinateFlags
	cmd := &cobra.Command{
		Use:   "coordinate --shards N [flags]",
		Short: "Run the shards of one replay as one run: one start, live merged histograms and thresholds, one report",
		Long: `Coordinate the shards of one replay: N processes of replayctl run --shards N
--coordinator URL (on this machine or others: a Kubernetes Indexed Job) connect
to it over HTTP.

Once every shard has registered (with the same tape, config and flags), it
gives them one start time, --start-lead ahead, which every shard anchors its
clock to. Each shard streams the histograms of what it measured every
--interval; the coordinator merges them without loss, and with
--abort-on-fail stops every shard as soon as a threshold fails on the merged
data. When every shard has delivered its report or been lost (no heartbeat
for --heartbeat-timeout), it writes one merged report, its thresholds judged
on the merged figures, with the start skew between the shards and the lost
shards named.

The shared secret is read from REPLAYCTL_COORDINATOR_TOKEN (give the shards
the same); a --listen beyond loopback needs one.

Exit status: 0 the merged run passes, 1 it does not (a failure, a threshold,
a lost shard), 2 bad flags, 130 interrupted.`,
		Example: `  export REPLAYCTL_COORDINATOR_TOKEN=$(openssl rand -hex 16)
  replayctl coordinate --shards 4 --listen 127.0.0.1:7340 --threshold "p99<200ms" --report run.json &
  for i in 0 1 2 3; do
    REPLAYCTL_SHARD_INDEX=$i replayctl run tape.jsonl --sessions 200 --shards 4 \
      --coordinator http://127.0.0.1:7340 --target http://127.0.0.1:3000/mcp &
  done; wait`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.coordinate(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.shards, "shards", 0, "how many shards the run has (required)")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:7340", "the address shards connect to; beyond loopback (0.0.0.0:7340, :7340) it needs REPLAYCTL_COORDINATOR_TOKEN")
	fl.StringArrayVar(&f.thresholds, "threshold", nil, `a condition the merged run must meet, as run's: "p99<200ms" (repeatable; the shards' own thresholds are judged on the merged data too)`)
	fl.StringArrayVar(&f.reports, "report", nil, "write the merged report to FILE; format by extension: .json, .xml (JUnit), .html (repeatable)")
	fl.StringVar(&f.shardDir, "shard-reports", "", "keep each shard's JSON report in this folder, as shard-I-of-N.json")
	fl.StringVarP(&f.output, "output", "o", "text", "what goes to stdout: text or json")
	addCoordFlags(cmd, &f.coordFlags)
	registerValues(cmd, "output", outputs...)
	return cmd
}

func (a *app) coordinate(cmd *cobra.Command, f coordinateFlags) error {
	switch {
	case !cmd.Flags().Changed("shards"):
		return usageError("--shards N: say how many shards will connect (1 to %d)", MaxLocalShards*16)
	case f.shards < 1 || f.shards > MaxLocalShards*16:
		return usageError("--shards %d: want 1 to %d shards", f.shards, MaxLocalShards*16)
	case f.output != "text" && f.output != "json":
		return usageError("-o %q: want text or json", f.output)
	}
	if err := f.check(); err != nil {
		return err
	}
	for _, p := range f.reports {
		if err := report.CheckPath(p); err != nil {
			return usageError("--report: %w", err)
		}
	}
	if f.shardDir != "" {
		if err := a.makeOutDir("--shard-reports", f.shardDir); err != nil {
			return err
		}
	}
	var ts []report.Threshold
	for _, x := range f.thresholds {
		t, err := report.ParseThreshold(x)
		if err != nil {
			return usageError("--threshold: %w", err)
		}
		ts = append(ts, t)
	}
	token := os.Getenv(coord.EnvToken)
	// Refused before anything listens: beyond loopback, anyone who can
	// reach the port could join the run, or stop it.
	if !transport.IsLoopbackAddr(f.listen) && token == "" {
		return usageError("--listen %s is beyond loopback: set %s to a shared secret (on the shards too), so that only the shards can join", f.listen, coord.EnvToken)
	}
	ln, err := listenTCP("--listen", f.listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	if w := beyondLoopbackWarning(ln.Addr()); w != "" {
		fmt.Fprintln(a.errOut, w)
	}
	a.redact([]string{token})
	srv, err := coord.New(f.shards, append(f.options(token, ts), coord.Logger(a.log))...)
	if err != nil {
		return usageError("%v", err)
	}
	fmt.Fprintf(a.errOut, "coordinator: listening on http://%s for %s\n", ln.Addr(), english.Count(int64(f.shards), "shard"))
	rep, err := a.serveCoordinator(cmd.Context(), srv, ln)
	if err != nil {
		return err
	}
	if f.shardDir != "" {
		if err := writeShardReports(srv, f.shards, f.shardDir); err != nil {
			return err
		}
	}
	if err := a.showReport(cmd.OutOrStdout(), rep, f.output, nil, f.reports); err != nil {
		return err
	}
	return coordinatedExit(cmd.Context(), rep)
}

// serveCoordinator serves srv on ln until the run is over
// (coord.Server.Serve), and returns its merged report (see coordError).
func (a *app) serveCoordinator(ctx context.Context, srv *coord.Server, ln net.Listener) (*report.Report, error) {
	rep, err := srv.Serve(ctx, ln)
	return rep, coordError(ctx, err)
}

// coordError gives a coordinated run's error its exit status: a run
// with no report fails (exit 1), or was interrupted (130).
func coordError(ctx context.Context, err error) error {
	if errors.Is(err, coord.ErrNoReport) {
		code := exitFailed
		if ctx.Err() != nil {
			code = exitInterrupted
		}
		return &exitError{code: code, err: err}
	}
	return err
}

// coordinatedExit is the exit of a coordinated run by its merged report.
func coordinatedExit(ctx context.Context, rep *report.Report) error {
	switch {
	case ctx.Err() != nil:
		return &exitError{code: exitInterrupted, err: context.Cause(ctx)}
	case rep.Summary.Stopped == report.StopTarget:
		return &exitError{code: exitTarget, err: errors.New("a shard's target failed: " + rep.Summary.Aborted)}
	case !rep.Passed():
		return errReported
	}
	return nil
}

// writeShardReports writes each shard's report to dir as
// shard-I-of-N.json.
func writeShardReports(srv *coord.Server, n int, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError("--shard-reports %s: %v", dir, err)
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.json", i, n))
		r := srv.Final(i)
		if r == nil {
			// A report left by an earlier run must not stand in for this one's.
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		if err := report.WriteFile(p, *r); err != nil {
			return err
		}
	}
	return nil
}
