package replay_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/engine"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const quickstart = "../examples/quickstart.jsonl"

func TestRunAgainstMock(t *testing.T) {
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()))
	if err != nil || rep == nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.Passed() || rep.ExitStatus() != report.ExitPassed || rep.Validation.Checked != 8 {
		t.Errorf("passed %v, exit %d, checked %d; want a pass of 8 checks", rep.Passed(), rep.ExitStatus(), rep.Validation.Checked)
	}
	if rep.Summary.Target != "mock" || rep.Summary.Tape != quickstart {
		t.Errorf("target %q tape %q", rep.Summary.Target, rep.Summary.Tape)
	}
}

func TestRunSourceInMemory(t *testing.T) {
	b, err := os.ReadFile(quickstart)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.RunSource(t.Context(), tape.Bytes("built-in-test", b), replay.WithSpeed(replay.Fast()))
	if err != nil || !rep.Passed() || rep.Summary.Tape != "built-in-test" {
		t.Fatalf("err %v; passed %v, tape %q", err, rep != nil && rep.Passed(), rep.Summary.Tape)
	}
}

func TestOptionErrors(t *testing.T) {
	tests := []struct {
		opt    replay.Option
		option string
	}{
		{replay.SpeedText("12q"), "Speed"},
		{replay.Sessions(0), "Sessions"},
		{replay.Sessions(replay.MaxSessions + 1), "Sessions"},
		{replay.Timeout(0), "Timeout"},
		{replay.OnError("explode"), "OnError"},
		{replay.OnError("pause"), "OnError"},
		{replay.Order("backwards"), "Order"},
		{replay.Ramp(-time.Second), "Ramp"},
		{replay.Shard(4, 4), "Shard"},
		{replay.Shard(0, 0), "Shard"},
		{replay.Shard(-1, 2), "Shard"},
		{replay.MaxInflight(0), "MaxInflight"},
		{replay.Spin(-time.Millisecond), "Spin"},
		{replay.Spin(time.Hour), "Spin"},
		{replay.GCHeadroom(-1), "GCHeadroom"},
		{replay.MaxRetries(-1), "MaxRetries"},
		{replay.MaxMessage(0), "MaxMessage"},
		{replay.Seed(1), "Seed"},
		{replay.Chaos("explode=0.5"), "Chaos"},
		{replay.Thresholds("p99<<1"), "Thresholds"},
		{replay.ChaosFrom("no/such/report.json"), "ChaosFrom"},
		{replay.WithSpeed(replay.Stepped()), "Speed"}, // without Steps
		{replay.Ignore("result[[["), "Ignore"},
		{replay.Validation("loose"), "Validation"},
		{replay.Against(replay.Command("")), "Command"},
		{replay.Against(replay.HTTP("localhost:3000")), "HTTP"},
		{replay.Against(replay.Mock().WithEnv("A=B")), "Against"},
		{replay.Against(replay.Command("x").WithEnv("novalue")), "WithEnv"},
		{replay.Against(replay.Command("x").WithDir("no/such/dir")), "WithDir"},
		{replay.Against(replay.HTTP("http://127.0.0.1:1/mcp").WithHeader("X", "${UNSET_FOR_TEST")), "WithHeader"},
		{replay.Against(replay.HTTP("http://127.0.0.1:1/mcp").WithHTTPSpare(transport.MaxSpare + 1)), "Against"},
		{replay.Against(replay.HTTP("http://127.0.0.1:1/mcp").WithHTTPSpare(-1)), "Against"},
		{replay.Against(replay.Mock().WithHTTPSpare(1)), "Against"},
	}
	for _, tt := range tests {
		t.Run(tt.option, func(t *testing.T) {
			rep, err := replay.Run(t.Context(), quickstart, tt.opt)
			var oe *replay.OptionError
			if rep != nil || !errors.As(err, &oe) || oe.Option != tt.option {
				t.Fatalf("got %v, %v; want an *OptionError for %s", rep, err, tt.option)
			}
			if !strings.Contains(err.Error(), tt.option) {
				t.Errorf("error %q does not name %s", err, tt.option)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	if _, err := replay.Run(t.Context(), quickstart, replay.ConfigFile("no/such.yaml")); err == nil {
		t.Error("a missing config file was accepted")
	}
	// A pattern only the validator can judge, not the YAML decoding.
	file, err := config.Parse("bad.yaml", []byte("validation:\n  rules:\n    - scope: { method: tools/call }\n      required_fields: [\"$\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = replay.Run(t.Context(), quickstart, replay.Config(file))
	var ce *replay.ConfigError
	if !errors.As(err, &ce) || ce.Section != "validation" || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("got %v; want a *ConfigError for the validation rule on line 3", err)
	}
	// A value the file set is the file's error, not an option's.
	_, err = replay.Run(t.Context(), quickstart, replay.ConfigFile("../examples/debug.yaml"))
	if !errors.As(err, &ce) || ce.Section != "error_handling.strategy" || !strings.Contains(err.Error(), "debug.yaml") {
		t.Errorf("got %v; want a *ConfigError naming debug.yaml's error_handling.strategy", err)
	}
	if _, err = replay.Run(t.Context(), quickstart, replay.ConfigFile("../examples/debug.yaml"), replay.OnError("continue"), replay.WithSpeed(replay.Fast())); err != nil {
		t.Errorf("options given override the file: %v", err)
	}
	// Options override the file; thresholds add up.
	file, err = config.Parse("ok.yaml", []byte("speed: 0.001x\nthresholds: [\"validation_failed==0\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Run(t.Context(), quickstart, replay.Config(file), replay.WithSpeed(replay.Fast()), replay.Thresholds("throughput>0"))
	if err != nil || rep.Summary.Speed == nil || *rep.Summary.Speed != (scheduler.Speed{Mode: scheduler.Fast}) || len(rep.Thresholds) != 2 {
		t.Errorf("err %v, speed %v, %d thresholds; want fast and 2", err, rep.Summary.Speed, len(rep.Thresholds))
	}
}

func TestHooks(t *testing.T) {
	var results, faults int
	ends := map[string]replay.SessionEnd{}
	var sent []string
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Sessions(3),
		replay.Chaos("error-response=0.5"), replay.Seed(5),
		replay.BeforeSend(func(m *replay.Message) bool {
			sent = append(sent, m.Method)
			return m.Method != "ping" // drop every ping
		}),
		replay.OnResult(func(r report.Result) {
			results++
			if r.Method == "ping" {
				t.Errorf("seq %d: a dropped ping was replayed", r.Seq)
			}
		}),
		replay.OnFault(func(report.Fault) { faults++ }),
		replay.OnSessionEnd(func(e replay.SessionEnd) { ends[e.Session] = e }),
	)
	if rep == nil {
		t.Fatal(err)
	}
	if len(sent) == 0 || sent[0] != "initialize" {
		t.Errorf("BeforeSend saw %v; want the client's messages, initialize first", sent)
	}
	if faults == 0 || int64(faults) != rep.Chaos.Injected {
		t.Errorf("OnFault saw %d faults, the report %d", faults, rep.Chaos.Injected)
	}
	total := 0
	for _, name := range []string{"s1#1", "s1#2", "s1#3"} {
		e, ok := ends[name]
		if !ok || e.Err != nil || e.Results == 0 {
			t.Errorf("session %s: end %+v (seen %v); want one clean end with results", name, e, ok)
		}
		total += e.Results
	}
	if len(ends) != 3 || total != results {
		t.Errorf("%d session ends counting %d results; OnResult saw %d", len(ends), total, results)
	}
}

func TestBeforeSendEdits(t *testing.T) {
	// The mock answers what was recorded for a request: an edited one is
	// not on the tape, so its answer fails validation, exactly there.
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()),
		replay.BeforeSend(func(m *replay.Message) bool {
			if m.Seq == 5 {
				m.Raw = []byte(strings.Replace(string(m.Raw), "hello, replay", "edited", 1))
			}
			return true
		}))
	if rep == nil {
		t.Fatal(err)
	}
	if rep.Passed() || rep.Validation.Failed+rep.Performance.Errors != 1 {
		t.Fatalf("passed %v, %d failed, %d errors; want the one edited message to fail", rep.Passed(), rep.Validation.Failed, rep.Performance.Errors)
	}
}

func TestOutcome(t *testing.T) {
	t.Run("stop at the first failure", func(t *testing.T) {
		rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.OnError("stop"),
			replay.Against(replay.MockTape("../examples/everything.jsonl")))
		if !errors.Is(err, engine.ErrStoppedOnError) || rep.ExitStatus() != report.ExitFailed {
			t.Errorf("err %v, exit %d; want ErrStoppedOnError and 1", err, rep.ExitStatus())
		}
	})
	t.Run("a failed target", func(t *testing.T) {
		rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Timeout(5*time.Second),
			replay.Against(replay.Command("sh", "-c", "exit 7")))
		if !errors.Is(err, engine.ErrTarget) || rep.ExitStatus() != report.ExitTarget || rep.Summary.Aborted == "" {
			t.Errorf("err %v, exit %d, aborted %q; want ErrTarget, 3 and why", err, rep.ExitStatus(), rep.Summary.Aborted)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		rep, err := replay.Run(ctx, quickstart, replay.WithSpeed(replay.Times(0.01)))
		if err == nil || rep.ExitStatus() != report.ExitInterrupted || rep.Passed() {
			t.Errorf("err %v, exit %d; want an error and 130", err, rep.ExitStatus())
		}
	})
	t.Run("a failed threshold", func(t *testing.T) {
		rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Thresholds("throughput>1000000000"))
		if err != nil || rep.ExitStatus() != report.ExitFailed || len(rep.ThresholdsFailed()) != 1 {
			t.Errorf("err %v, exit %d; want nil and 1 for the threshold", err, rep.ExitStatus())
		}
	})
	t.Run("a mock tape that cannot be read", func(t *testing.T) {
		rep, err := replay.Run(t.Context(), quickstart, replay.Against(replay.MockTape("no/such/tape.jsonl")))
		var te *tape.Error
		if rep != nil || !errors.As(err, &te) {
			t.Errorf("got %v, %v; want no report and a *tape.Error", rep, err)
		}
	})
	t.Run("a tape that cannot be read", func(t *testing.T) {
		rep, err := replay.Run(t.Context(), "no/such/tape.jsonl")
		var te *tape.Error
		if rep != nil || !errors.As(err, &te) {
			t.Errorf("got %v, %v; want no report and a *tape.Error", rep, err)
		}
	})
}
