package replay_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// TestCheckConfigAgreesWithNew: CheckConfig refuses a config exactly when
// New does, with New's error, for run's replay and for a controlled one
// (debug's).
func TestCheckConfigAgreesWithNew(t *testing.T) {
	configs := []struct {
		name, yaml     string
		okRun, okDebug bool
	}{
		{"empty", "", true, true},
		{"pause", "error_handling:\n  strategy: pause\n", false, true},
		{"stop", "error_handling:\n  strategy: stop\n", true, true},
		{"too many sessions", fmt.Sprintf("performance:\n  sessions: %d\n", replay.MaxSessions+1), false, false},
		{"sessions", "performance:\n  sessions: 3\n", true, false},
		{"latency without a unit", "thresholds: [\"p99<200\"]\n", false, false},
		{"latency with a unit", "thresholds: [\"p99<200ms\", \"throughput>5\"]\n", true, true},
		{"stepped", "speed: stepped\n", true, true},
		{"10x ramped", "speed: 10x\nperformance:\n  sessions: 2\n  ramp: 1s\n", true, false},
		{"a targeted fault", "chaos:\n  targets:\n    - {method: tools/call, fault: drop, nth: 2}\n", true, true},
		{"a bad path in a rule", "validation:\n  rules:\n    - scope: { method: tools/call }\n      required_fields: [\"$\"]\n", false, false},
	}
	steps := make(chan struct{}) // run gives stepped replays their steps
	for _, c := range configs {
		file, err := config.Parse("c.yaml", []byte(c.yaml))
		var perr *config.Error
		if errors.As(err, &perr) && !c.okRun && !c.okDebug && perr.Line > 0 {
			continue // refused by the config check already, with its line: New never sees it
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, mode := range []struct {
			name string
			ok   bool
			opts []replay.Option
		}{
			{"run", c.okRun, []replay.Option{replay.Steps(steps)}},
			{"debug", c.okDebug, []replay.Option{replay.Control()}},
		} {
			t.Run(c.name+"/"+mode.name, func(t *testing.T) {
				checkErr := replay.CheckConfig("c.yaml", file, mode.opts...)
				_, newErr := replay.New(tape.File(quickstart), append(slices.Clone(mode.opts), replay.Config(file))...)
				if (checkErr == nil) != mode.ok {
					t.Errorf("CheckConfig: got %v, want ok %v", checkErr, mode.ok)
				}
				if (newErr == nil) != mode.ok {
					t.Errorf("New: got %v, want ok %v", newErr, mode.ok)
				}
				// The same error, but for the path: New had a parsed
				// config, with none.
				var ce, ne *replay.ConfigError
				if checkErr != nil && newErr != nil {
					if !errors.As(checkErr, &ce) || !errors.As(newErr, &ne) || ce.Path != "c.yaml" || ce.Section != ne.Section || ce.Err.Error() != ne.Err.Error() {
						t.Errorf("CheckConfig says %q, New %q: want the same *ConfigError", checkErr, newErr)
					}
				}
			})
		}
	}
}

func TestMissingEnv(t *testing.T) {
	t.Setenv("REPLAYCTL_TEST_SET", "v")
	file, err := config.Parse("c.yaml", []byte(`transformations:
  - condition: { always: true }
    action: { set_param: { path: "$.params.a", value: "${env.REPLAYCTL_TEST_SET}" } }
  - condition: { always: true }
    action: { set_param: { path: "$.params.b", value: "${env.REPLAYCTL_TEST_UNSET}" } }
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := replay.MissingEnv(file); !slices.Equal(got, []string{"REPLAYCTL_TEST_UNSET"}) {
		t.Errorf("got %v, want [REPLAYCTL_TEST_UNSET]", got)
	}
	if err := replay.CheckConfig("c.yaml", file); err != nil {
		t.Errorf("CheckConfig: got %v, want nil: the environment is not the file's", err)
	}
}
