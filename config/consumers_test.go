package config_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/validator"
)

// TestFaultKindsMatchChaos keeps config's copy of the fault names equal
// to the chaos package's (which imports config, so config cannot ask it).
func TestFaultKindsMatchChaos(t *testing.T) {
	var want []string
	for _, k := range chaos.Kinds() {
		want = append(want, string(k))
	}
	if !slices.Equal(config.FaultKinds, want) {
		t.Errorf("got fault kinds %v, want chaos.Kinds() %v", config.FaultKinds, want)
	}
}

// TestConsumersAcceptExamples hands the example config and the examples/
// files to the packages that compile their sections: what Parse accepts,
// they must accept too.
func TestConsumersAcceptExamples(t *testing.T) {
	files := map[string]func() (*config.File, error){
		"Example()": func() (*config.File, error) { return config.Parse("example.yaml", []byte(config.Example())) },
	}
	for _, name := range []string{"debug.yaml", "load.yaml", "chaos.yaml"} {
		path := filepath.Join("..", "examples", name)
		files[name] = func() (*config.File, error) { return config.Load(path) }
	}
	for name, load := range files {
		t.Run(name, func(t *testing.T) {
			f, err := load()
			if err != nil {
				t.Fatalf("got %v, want it to parse", err)
			}
			if _, err := validator.FromConfig(f.Validation, nil); err != nil {
				t.Errorf("validator.FromConfig: got %v, want no error", err)
			}
			faults, err := chaos.ParseFaults(f.Chaos.Faults)
			if err != nil {
				t.Fatalf("chaos.ParseFaults: got %v, want no error", err)
			}
			if _, err := chaos.NewPlan(1, faults, f.Chaos.Targets); err != nil {
				t.Errorf("chaos.NewPlan: got %v, want no error", err)
			}
		})
	}
}
