package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/validator"
)

// loadConfig reads the config the options name, if any, checks what its
// YAML decoding cannot, and fills in the options not given from it:
// options override the file. Thresholds add up.
func (s *settings) loadConfig() (*config.File, string, error) {
	file, path := s.configFile, s.configPath
	switch {
	case path != "" && file != nil:
		return nil, "", bad("ConfigFile", path, fmt.Errorf("give ConfigFile or Config, not both"))
	case path != "":
		f, err := config.Load(path)
		if err != nil {
			return nil, "", err // a *config.Error says where
		}
		file = f
	case file == nil:
		return nil, "", nil
	}
	if err := s.useConfig(path, file); err != nil {
		return nil, "", err
	}
	return file, path, nil
}

// useConfig checks what file's YAML decoding cannot (checkRules) and
// fills in from it the options not given.
func (s *settings) useConfig(path string, file *config.File) error {
	if err := checkRules(path, file); err != nil {
		return err
	}
	for _, w := range file.Warnings { // what the file allows but doubts
		s.logger.Warn().Str("config", path).Msg(w.Error())
	}
	unset := func(name string) bool {
		if s.set[name] {
			return false
		}
		s.fromFile[name] = true // if the file sets it (else the default stays)
		return true
	}
	if file.Speed != "" && unset("Speed") {
		s.speed = speedValue(file.SpeedValue, file.Speed)
		if s.controlled && file.SpeedValue.Mode == scheduler.Stepped { // a controller steps by itself
			s.speed = speedText("fast")
		}
	}
	p := file.Performance
	if p.MaxInflight > 0 && unset("MaxInflight") {
		s.maxInflight = p.MaxInflight
	}
	if p.Sessions > 0 && unset("Sessions") {
		s.sessions = p.Sessions
	}
	if p.Ramp > 0 && unset("Ramp") {
		s.ramp = p.Ramp.D()
	}
	if p.Timeout > 0 && unset("Timeout") {
		s.timeout = p.Timeout.D()
	}
	if p.Spin != nil && unset("Spin") {
		s.spin = p.Spin.D()
	}
	if p.GCHeadroom != nil && unset("GCHeadroom") {
		s.gcHeadroom = int64(*p.GCHeadroom)
	}
	eh := file.ErrorHandling
	// A controlled replay pauses at errors, or goes on: a config's stop or
	// retry is the controller's to decide.
	if eh.Strategy != "" && unset("OnError") && (!s.controlled || eh.Strategy == "continue") {
		s.onError = eh.Strategy
	}
	if eh.MaxRetries != nil && unset("MaxRetries") {
		s.maxRetries = *eh.MaxRetries
	}
	if d := eh.RetryDelay.D(); d > 0 && unset("RetryDelay") {
		s.retryDelay = d
	}
	s.thresholds = append(slices.Clone(file.Thresholds), s.thresholds...)
	return nil
}

// configKey is the config file's key of each option it can set.
var configKey = map[string]string{
	"Speed": "speed", "MaxInflight": "performance.max_inflight", "Sessions": "performance.sessions",
	"Ramp": "performance.ramp", "Timeout": "performance.timeout", "Spin": "performance.spin", "GCHeadroom": "performance.gc_headroom", "OnError": "error_handling.strategy",
	"MaxRetries": "error_handling.max_retries", "RetryDelay": "error_handling.retry_delay",
}

// blameFile turns the error of an option the config file set into an
// error about the file: the user did not give that option.
func (s *settings) blameFile(err error, path string) error {
	var oe *OptionError
	if !errors.As(err, &oe) || !s.fromFile[oe.Option] || configKey[oe.Option] == "" {
		return err
	}
	return &ConfigError{Path: path, Section: configKey[oe.Option], Err: fmt.Errorf("%q: %w", oe.Value, oe.Err)}
}

// CheckConfig checks file as New does, so that `replayctl config check`
// and a replay agree: everything New would refuse in it — transformation
// paths and expressions, validation rules, thresholds (a latency needs a
// unit), the chaos plan, and the values the options take from it (speed,
// error_handling.strategy, performance.sessions…) — for a replay with
// opts. With no opts that is `replayctl run`'s replay, which refuses the
// strategy pause; with Control(), a debug session's, which takes it.
//
// What New checks beyond the options and the file is not checked: the
// tape, the target, and Steps at speed stepped. Environment values are not
// needed to check the rules' shape. path names the file in errors. The
// error is the one New would return: a *ConfigError naming path and the
// key, or an *OptionError for a bad value in opts.
func CheckConfig(path string, file *config.File, opts ...Option) error {
	s := defaults()
	for _, o := range opts {
		o(s)
	}
	s.controlDefaults()
	if err := s.useConfig(path, file); err != nil {
		return err
	}
	if _, err := s.check(); err != nil {
		return s.blameFile(err, path)
	}
	if _, err := parseThresholds(s.thresholds); err != nil {
		return err
	}
	_, _, _, err := s.chaosPlan(file, path, "")
	return err
}

// MissingEnv lists the environment variables that file's transformations
// read (${env.NAME}) and that are not set: New refuses the file while one
// of them is missing. CheckConfig does not, since a file is often checked
// where its secrets are not; CheckEnv does.
func MissingEnv(file *config.File) []string {
	var missing []string
	lookup := transformer.WithEnv(func(name string) (string, bool) {
		if _, ok := os.LookupEnv(name); !ok && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
		return "x", true
	})
	_, _ = transformRules(file.Transformations, lookup) // their errors are CheckConfig's
	return missing
}

// CheckEnv returns the error New returns for a file whose transformations
// read an environment variable (${env.NAME}) that is not set: a
// *ConfigError naming path, the rule, its line and the variable; nil when
// every one is set. It assumes CheckConfig passed the file.
func CheckEnv(path string, file *config.File) error {
	if _, err := transformRules(file.Transformations); err != nil {
		return &ConfigError{Path: path, Err: err}
	}
	return nil
}

// checkRules checks what a config's YAML decoding cannot: transformation
// paths and expressions, validation rules, thresholds, the chaos plan, as
// a replay compiles them. path names the file in errors; environment
// values are not needed to check the rules' shape.
func checkRules(path string, file *config.File) error {
	bad := func(section string, err error) error { return &ConfigError{Path: path, Section: section, Err: err} }
	anyEnv := transformer.WithEnv(func(string) (string, bool) { return "x", true })
	if _, err := transformRules(file.Transformations, anyEnv); err != nil {
		return bad("transformations", err)
	}
	if _, err := validatorRules(file.Validation, nil); err != nil {
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
		if _, err := chaos.NewPlan(0, faults, chaosTargets(file.Chaos.Targets)); err != nil {
			return bad("chaos", err)
		}
	}
	return nil
}

// applyConfig sets what the config says beyond the options: the replay
// window and method filters, validation rules, transformations. It
// returns the secrets the transformations took from the environment.
func applyConfig(cfg *engine.Config, file *config.File, path string, ignore []string, vopts ...validator.Option) ([]string, error) {
	cfg.Filter = engine.Filter{
		StartOffset:       file.StartOffset.D(),
		EndOffset:         file.EndOffset.D(),
		IncludeMethods:    file.IncludeMethods,
		ExcludeMethods:    file.ExcludeMethods,
		SkipNotifications: file.SkipNotifications,
	}
	v, err := validatorRules(file.Validation, ignore, vopts...)
	if err != nil {
		return nil, &ConfigError{Path: path, Err: err}
	}
	cfg.Validator = v
	if len(file.Transformations) == 0 {
		return nil, nil
	}
	rules, err := transformRules(file.Transformations)
	if err != nil {
		return nil, &ConfigError{Path: path, Err: err}
	}
	cfg.Rules = rules
	return rules.Secrets(), nil
}

// chaosPlan builds the fault plan of the Chaos, Seed and ChaosFrom options
// and the config's chaos section (options win); nil when no chaos was
// asked for. random reports a seed picked at random; warning says what
// the replay should know of a ChaosFrom report (another tape's). tapeName
// is the name of the tape being replayed.
func (s *settings) chaosPlan(file *config.File, path, tapeName string) (plan *chaos.Plan, random bool, warning string, err error) {
	if s.chaosFaults != nil {
		if s.chaos != "" || s.chaosFrom != "" {
			return nil, false, "", bad("ChaosFaults", len(s.chaosFaults.faults), fmt.Errorf("replays a given list of faults: give it, ChaosFrom or a chaos spec, not two of them"))
		}
		plan, err := chaos.FromReport(s.chaosFaults.seed, chaosFaultsFromReport(s.chaosFaults.faults))
		if err != nil {
			return nil, false, "", bad("ChaosFaults", len(s.chaosFaults.faults), err)
		}
		return plan, false, "", nil
	}
	if s.chaosFrom != "" {
		if s.chaos != "" {
			return nil, false, "", bad("ChaosFrom", s.chaosFrom, fmt.Errorf("replays an earlier run's faults: give it or a chaos spec, not both"))
		}
		return planFromReport(s.chaosFrom, tapeName)
	}
	var faults map[chaos.Kind]float64
	var targets []config.ChaosTarget
	var seed *int64
	if file != nil {
		c := file.Chaos
		if len(c.Faults) > 0 {
			if faults, err = chaos.ParseFaults(c.Faults); err != nil {
				return nil, false, "", &ConfigError{Path: path, Section: "chaos.faults", Err: err}
			}
		}
		targets, seed = c.Targets, c.Seed
	}
	if s.chaos != "" {
		if faults, err = chaos.ParseSpec(s.chaos); err != nil {
			return nil, false, "", bad("Chaos", s.chaos, err)
		}
	}
	if s.set["Seed"] {
		seed = &s.seed
	}
	if len(faults) == 0 && len(targets) == 0 {
		if s.set["Seed"] && s.order != string(engine.OrderRandom) {
			return nil, false, "", bad("Seed", s.seed, fmt.Errorf("nothing to seed: there are no chaos faults and the order is not random"))
		}
		return nil, false, "", nil
	}
	if seed == nil {
		r := chaos.RandomSeed()
		seed, random = &r, true
	}
	if plan, err = chaos.NewPlan(*seed, faults, chaosTargets(targets)); err != nil {
		if s.chaos == "" {
			return nil, false, "", &ConfigError{Path: path, Section: "chaos", Err: err}
		}
		return nil, false, "", bad("Chaos", s.chaos, err)
	}
	return plan, random, "", nil
}

// planFromReport reads the faults and the seed of an earlier run's JSON
// report. The faults are placed by session and seq: a report of another
// tape than tapeName (by file name) gives a warning, as they may land on
// other messages.
func planFromReport(path, tapeName string) (*chaos.Plan, bool, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, "", bad("ChaosFrom", path, err)
	}
	var r struct {
		Summary struct {
			Tape string `json:"tape"`
		} `json:"summary"`
		Chaos struct {
			Seed          *int64         `json:"seed"`
			Faults        []report.Fault `json:"faults"`
			FaultsOmitted int64          `json:"faults_omitted"`
		} `json:"chaos"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, false, "", bad("ChaosFrom", path, fmt.Errorf("not a JSON report of replayctl: %v", err))
	}
	if len(r.Chaos.Faults) == 0 {
		return nil, false, "", bad("ChaosFrom", path, fmt.Errorf("the report lists no faults (was it a chaos run? are faults_omitted?)"))
	}
	if r.Chaos.FaultsOmitted > 0 {
		return nil, false, "", bad("ChaosFrom", path, fmt.Errorf("the report lists %d faults and left out %d: it cannot repeat the run; repeat it with its seed (--seed %d) and chaos spec instead",
			len(r.Chaos.Faults), r.Chaos.FaultsOmitted, seedOf(r.Chaos.Seed)))
	}
	plan, err := chaos.FromReport(seedOf(r.Chaos.Seed), chaosFaultsFromReport(r.Chaos.Faults))
	if err != nil {
		return nil, false, "", bad("ChaosFrom", path, err)
	}
	var warning string
	if recorded := r.Summary.Tape; recorded != "" && filepath.Base(recorded) != filepath.Base(tapeName) {
		warning = fmt.Sprintf("the chaos report %s is of tape %s, not %s; its faults are placed by session and seq, so on another tape they fall on other messages", path, recorded, tapeName)
	}
	return plan, false, warning, nil
}

func seedOf(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
