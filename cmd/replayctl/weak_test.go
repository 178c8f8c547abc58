package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/testserver"
)

// TestValuesRefusedBeforeReplay: values that used to be taken silently are
// refused with exit 2, before anything is replayed, saying what to write.
func TestValuesRefusedBeforeReplay(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "bare.yaml")
	if err := os.WriteFile(cfg, []byte("thresholds: [\"p99<200\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := []string{"run", "examples/quickstart.jsonl", "--speed", "fast"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"negative retries", append(run, "--max-retries", "-1"), "--max-retries -1: want 0 or more retries (0: none)"},
		{"log level trace", append(run, "--log-level", "trace"), `--log-level "trace": want debug, info, warn or error`},
		{"log level a number", []string{"inspect", "examples/quickstart.jsonl", "--log-level", "-1"}, `--log-level "-1": want debug`},
		{"latency without a unit", append(run, "--threshold", "p99<200"), "p99 is a duration and 200 has no unit: write p99<200ms for milliseconds"},
		{"run time without a unit", append(run, "--threshold", "duration < 60"), "write duration<60ms"},
		{"latency without a unit in a config", append(run, "--config", cfg), "bare.yaml line 1: thresholds[0]: \"p99<200\": p99 is a duration"},
		{"the same, config check", []string{"config", "check", cfg}, "write p99<200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayctl(t, tc.args...)
			if res.code != exitBadInput || res.stdout != "" {
				t.Errorf("got exit %d, stdout %q; want exit 2 and nothing replayed", res.code, res.stdout)
			}
			if !strings.Contains(res.stderr, tc.want) {
				t.Errorf("got stderr %q, want it to say %q", res.stderr, tc.want)
			}
		})
	}
}

// TestReportFolderCheckedFirst: a --report folder that cannot be written
// is refused before the replay, naming the path (the target, a command
// that leaves a mark when it starts, is never started); the other reports
// are not written.
func TestReportFolderCheckedFirst(t *testing.T) {
	ro := filepath.Join(testserver.UnwritableDir(t), "out.json")
	ok := filepath.Join(t.TempDir(), "ok.json")
	mark := filepath.Join(t.TempDir(), "started")
	res := replayctl(t, "run", "examples/quickstart.jsonl", "--report", ok, "--report", ro, "--", "sh", "-c", `: > "$0"; exec cat`, mark)
	if res.code != exitBadInput || res.stdout != "" {
		t.Errorf("got exit %d, stdout %q; want exit 2 and no replay", res.code, res.stdout)
	}
	if want := "--report: report " + ro + ": cannot write in the folder " + filepath.Dir(ro); !strings.Contains(res.stderr, want) {
		t.Errorf("got stderr %q, want it to say %q", res.stderr, want)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Errorf("the target was started (%v): the replay ran before the check", err)
	}
	if _, err := os.Stat(ok); !os.IsNotExist(err) {
		t.Errorf("%s: written (%v), want no report", ok, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(ok)); len(entries) != 0 {
		t.Errorf("the report folder holds %d files after the check, want none", len(entries))
	}
}

// TestConfigCheckAgreesWithRun: config check accepts a file exactly when
// run does (and --for debug when debug does), with run's error.
func TestConfigCheckAgreesWithRun(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct {
		name, yaml     string
		okRun, okDebug bool
	}{
		{"empty", "", true, true},
		{"pause is for debug", "error_handling:\n  strategy: pause\n", false, true},
		{"too many sessions", "performance:\n  sessions: 100001\n", false, false},
		{"sessions are for run", "performance:\n  sessions: 2\n", true, false},
		{"stepped", "speed: stepped\n", true, true},
		{"latency without a unit", "thresholds: [\"p99<200\"]\n", false, false},
		{"thresholds", "thresholds: [\"p99<200ms\", \"validation_failed==0\"]\n", true, true},
		{"a bad path in a rule", "validation:\n  rules:\n    - scope: { method: tools/call }\n      required_fields: [\"result.[[\"]\n", false, false},
		{"a typo", "speed: fats\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "c"+string(rune('a'+i))+".yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, m := range []struct {
				cmd   string
				ok    bool
				check result
				real  result
			}{
				{"run", tc.okRun, replayctl(t, "config", "check", path),
					replayctlIn(t, "\n\n\n\n\n\n\n\n\n\n", "run", "examples/quickstart.jsonl", "--config", path)},
				{"debug", tc.okDebug, replayctl(t, "config", "check", "--for", "debug", path),
					replayctlIn(t, "quit\n", "debug", "examples/quickstart.jsonl", "--config", path)},
			} {
				wantCode := exitBadInput
				if m.ok {
					wantCode = exitOK
				}
				if m.check.code != wantCode || m.real.code != wantCode {
					t.Errorf("%s: config check exit %d, %s exit %d; want both %d\ncheck: %s\n%s: %s", m.cmd, m.check.code, m.cmd, m.real.code, wantCode, m.check.stderr, m.cmd, m.real.stderr)
				}
				if !m.ok && !strings.HasPrefix(m.check.stderr, strings.TrimSuffix(m.real.stderr, "\n")) {
					t.Errorf("%s: config check says %q, want %s's error %q", m.cmd, m.check.stderr, m.cmd, m.real.stderr)
				}
			}
			note := strings.Contains(replayctl(t, "config", "check", path).stderr, "replayctl debug takes the file as it is (config check --for debug)")
			if want := !tc.okRun && tc.okDebug; note != want {
				t.Errorf("the note that debug takes the file: got %v, want %v", note, want)
			}
		})
	}
}

func TestConfigCheckNotesMissingEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "env.yaml")
	yaml := "transformations:\n  - condition: { always: true }\n    action: { set_param: { path: \"$.params.token\", value: \"${env.REPLAYCTL_TEST_NOT_SET}\" } }\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayctl(t, "config", "check", "--allow-missing-env", path)
	if res.code != exitOK || !strings.Contains(res.stderr, "note: ${env.REPLAYCTL_TEST_NOT_SET} is not set here; run refuses the file where it is not") {
		t.Errorf("--allow-missing-env: got exit %d, stderr %q; want 0 and a note naming the variable", res.code, res.stderr)
	}
	if res := replayctl(t, "config", "check", path); res.code != exitBadInput || !strings.Contains(res.stderr, "${env.REPLAYCTL_TEST_NOT_SET} is not set") {
		t.Errorf("without --allow-missing-env: got exit %d, stderr %q; want 2 naming the variable", res.code, res.stderr)
	}
	if run := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "--config", path); run.code != exitBadInput || !strings.Contains(run.stderr, "REPLAYCTL_TEST_NOT_SET") {
		t.Errorf("run: got exit %d, stderr %q; want 2 naming the variable", run.code, run.stderr)
	}
}

// TestConfigCheckRefusesMissingEnvAsRunDoes: the file `config example`
// prints reads ${env.AUTH_TOKEN}; where it is not set, run refuses the
// file, so config check does too, with run's error and exit status.
func TestConfigCheckRefusesMissingEnvAsRunDoes(t *testing.T) {
	t.Setenv("AUTH_TOKEN", "") // restored after the test
	if err := os.Unsetenv("AUTH_TOKEN"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.yaml")
	example := replayctl(t, "config", "example")
	if err := os.WriteFile(path, []byte(example.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	run := replayctl(t, "run", "examples/quickstart.jsonl", "--speed", "fast", "-q", "--config", path)
	if run.code != exitBadInput || !strings.Contains(run.stderr, "${env.AUTH_TOKEN} is not set") {
		t.Fatalf("run: got exit %d, stderr %q; want 2 naming AUTH_TOKEN", run.code, run.stderr)
	}
	check := replayctl(t, "config", "check", path)
	if check.code != run.code || strings.TrimSpace(check.stderr) != strings.TrimSpace(run.stderr) {
		t.Errorf("config check: got exit %d, stderr %q; want run's: exit %d, %q", check.code, check.stderr, run.code, run.stderr)
	}
	var res struct {
		OK    bool   `json:"ok"`
		Line  int    `json:"line"`
		Key   string `json:"key"`
		Error string `json:"error"`
	}
	asJSON := replayctl(t, "config", "check", "-o", "json", path)
	if err := json.Unmarshal([]byte(asJSON.stdout), &res); err != nil {
		t.Fatalf("config check -o json: %v\n%s", err, asJSON.stdout)
	}
	if asJSON.code != exitBadInput || res.OK || res.Line == 0 || !strings.HasPrefix(res.Key, "transformations[") || !strings.Contains(res.Error, "${env.AUTH_TOKEN} is not set") {
		t.Errorf("config check -o json: got exit %d, %+v; want 2, ok false, the rule's line and key, the error naming AUTH_TOKEN", asJSON.code, res)
	}
}

// TestHelpDocumentsExitStatus: the root help lists the exit statuses,
// 130 for a signal among them.
func TestHelpDocumentsExitStatus(t *testing.T) {
	res := replayctl(t, "--help")
	for _, want := range []string{"Exit status:", "  2    bad usage or bad input", "  130  interrupted by Ctrl-C (SIGINT) or SIGTERM"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, res.stdout)
		}
	}
}
