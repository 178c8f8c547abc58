package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transformer"
)

// loadConfig reads --config, if given, and fills the flags the user did
// not set from it: flags override the file. What has no flag (the replay
// window, method filters, validation rules) is applied by configure.
func loadConfig(cmd *cobra.Command, f *runFlags) (*config.File, error) {
	if f.configPath == "" {
		return nil, nil
	}
	file, err := config.Load(f.configPath)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, &exitError{code: exitBadInput, err: err}
		}
		return nil, usageError("--config: %w", err)
	}
	if err := compileConfig(f.configPath, file); err != nil {
		return nil, err
	}
	unset := func(name string) bool { return !cmd.Flags().Changed(name) }
	if file.Speed != "" && unset("speed") {
		f.speed = file.Speed
	}
	p := file.Performance
	if p.MaxInflight > 0 && unset("max-inflight") {
		f.maxInflight = p.MaxInflight
	}
	if p.Sessions > 0 && unset("sessions") {
		f.sessions = p.Sessions
	}
	if p.Ramp > 0 && unset("ramp") {
		f.ramp = p.Ramp.D()
	}
	if p.Timeout > 0 && unset("timeout") {
		f.timeout = p.Timeout.D()
	}
	eh := file.ErrorHandling
	if eh.Strategy != "" && unset("on-error") {
		f.onError = eh.Strategy
	}
	if eh.MaxRetries != nil && unset("max-retries") {
		f.maxRetries = *eh.MaxRetries
	}
	// Thresholds add up: the file's and the flags'.
	f.thresholds = append(append([]string(nil), file.Thresholds...), f.thresholds...)
	return file, nil
}

// configure applies what the config file says beyond the flags. Values the
// transformations take from the environment are redacted from every output
// from then on.
func (a *app) configure(cfg *engine.Config, f runFlags, file *config.File) error {
	if file == nil {
		return nil
	}
	cfg.Filter = engine.Filter{
		StartOffset:       file.StartOffset.D(),
		EndOffset:         file.EndOffset.D(),
		IncludeMethods:    file.IncludeMethods,
		ExcludeMethods:    file.ExcludeMethods,
		SkipNotifications: file.SkipNotifications,
	}
	v, err := replay.ValidatorFromConfig(file.Validation, f.ignore)
	if err != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("%s: %w", f.configPath, err)}
	}
	cfg.Validator = v
	if len(file.Transformations) > 0 {
		rules, err := replay.TransformerFromConfig(file.Transformations)
		if err != nil {
			return &exitError{code: exitBadInput, err: fmt.Errorf("%s: %w", f.configPath, err)}
		}
		cfg.Rules = rules
		a.redact(rules.Secrets())
	}
	if d := file.ErrorHandling.RetryDelay.D(); d > 0 {
		cfg.RetryDelay = d
	}
	return nil
}

// compileConfig checks what the YAML decoding cannot: transformation paths
// and expressions, validation rules, thresholds, the chaos plan — as the
// replay will compile them, so that `config check` and `run` agree.
// Environment values are not needed to check the rules' shape.
func compileConfig(path string, file *config.File) error {
	bad := func(what string, err error) error {
		return &exitError{code: exitBadInput, err: fmt.Errorf("%s: %s: %w", path, what, err)}
	}
	anyEnv := transformer.WithEnv(func(string) (string, bool) { return "x", true })
	if _, err := replay.TransformerFromConfig(file.Transformations, anyEnv); err != nil {
		return bad("transformations", err)
	}
	if _, err := replay.ValidatorFromConfig(file.Validation, nil); err != nil {
		return bad("validation", err)
	}
	for _, t := range file.Thresholds {
		if _, err := report.ParseThreshold(t); err != nil {
			return bad("thresholds", err)
		}
	}
	if len(file.Chaos.Faults) > 0 || len(file.Chaos.Targets) > 0 {
		faults, err := chaos.ParseFaults(file.Chaos.Faults)
		if err != nil {
			return bad("chaos.faults", err)
		}
		if _, err := chaos.NewPlan(0, faults, replay.ChaosTargetsFromConfig(file.Chaos.Targets)); err != nil {
			return bad("chaos", err)
		}
	}
	return nil
}
