package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// chaosPlan builds the fault plan of --chaos / --seed / --chaos-from and
// the config's chaos section (flags win); nil when no chaos was asked for.
// A seed picked at random is printed, so that the run can be repeated.
func (a *app) chaosPlan(cmd *cobra.Command, f runFlags, file *config.File) (*chaos.Plan, error) {
	if f.chaosFrom != "" {
		if f.chaos != "" {
			return nil, usageError("--chaos-from replays an earlier run's faults: drop --chaos")
		}
		return planFromReport(f.chaosFrom)
	}
	var faults map[chaos.Kind]float64
	var targets []chaos.Target
	var seed *int64
	if file != nil {
		c := file.Chaos
		if len(c.Faults) > 0 {
			fs, err := chaos.ParseFaults(c.Faults)
			if err != nil {
				return nil, &exitError{code: exitBadInput, err: fmt.Errorf("%s: chaos.faults: %w", f.configPath, err)}
			}
			faults = fs
		}
		targets, seed = replay.ChaosTargetsFromConfig(c.Targets), c.Seed
	}
	if f.chaos != "" {
		fs, err := chaos.ParseSpec(f.chaos)
		if err != nil {
			return nil, usageError("--chaos: %w", err)
		}
		faults = fs
	}
	if cmd.Flags().Changed("seed") {
		seed = &f.seed
	}
	if len(faults) == 0 && len(targets) == 0 {
		if cmd.Flags().Changed("seed") && f.order != string(engine.OrderRandom) {
			return nil, usageError("--seed without --chaos, a config chaos section or --order random: nothing to seed")
		}
		return nil, nil
	}
	kinds := slices.Collect(maps.Keys(faults))
	for _, t := range targets {
		if k, err := chaos.ParseKind(string(t.Fault)); err == nil {
			kinds = append(kinds, k)
		}
	}
	if err := engine.CheckFaults(kinds); err != nil {
		return nil, usageError("%w", err)
	}
	if seed == nil {
		s := chaos.RandomSeed()
		seed = &s
		fmt.Fprintf(a.stderr, "chaos: seed %d (repeat this run with --seed %d)\n", s, s)
	}
	plan, err := chaos.NewPlan(*seed, faults, targets)
	if err != nil {
		return nil, usageError("chaos: %w", err)
	}
	return plan, nil
}

// planFromReport reads the faults of an earlier run's JSON report.
func planFromReport(path string) (*chaos.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError("--chaos-from: %w", err)
	}
	var r struct {
		Chaos struct {
			Seed   *int64         `json:"seed"`
			Faults []report.Fault `json:"faults"`
		} `json:"chaos"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, usageError("--chaos-from %s: not a JSON report of replayctl: %v", path, err)
	}
	if len(r.Chaos.Faults) == 0 {
		return nil, usageError("--chaos-from %s: the report lists no faults (was it a chaos run? are faults_omitted?)", path)
	}
	plan, err := chaos.FromReport(replay.ChaosFaultsFromReport(r.Chaos.Faults))
	if err != nil {
		return nil, usageError("--chaos-from %s: %w", path, err)
	}
	return plan, nil
}
