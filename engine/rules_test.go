package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/validator"
)

const header = `{"type":"header","format":"replayctl-tape","version":1}` + "\n"

func line(seq, us int, dir, msg string) string {
	return `{"type":"message","seq":` + strconv.Itoa(seq) + `,"t_us":` + strconv.Itoa(us) + `,"session":"s1","dir":"` + dir + `","msg":` + msg + "}\n"
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOnFailure replays one request whose live answer differs from the
// recording, under each on_failure of a validation rule.
func TestOnFailure(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"roll"}}`
	tape := writeFile(t, "tape.jsonl", header+line(0, 0, "c2s", req)+line(1, 10, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"n":6}}`))
	// The target answers 3 the first time and 6 the second.
	target := writeFile(t, "target.jsonl", header+
		line(0, 0, "c2s", req)+line(1, 10, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"n":3}}`)+
		line(2, 20, "c2s", req)+line(3, 30, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"n":6}}`))
	tests := []struct {
		onFailure                    string
		passed, failed, warned, skip int64
	}{
		{"error", 0, 1, 0, 0},
		{"warn", 1, 0, 1, 0},
		{"ignore", 1, 0, 0, 0},
		{"skip", 0, 0, 0, 1},
		{"retry", 1, 0, 0, 0}, // the second answer matches
	}
	for _, tt := range tests {
		t.Run(tt.onFailure, func(t *testing.T) {
			v, err := validator.New(validator.WithRules(validator.Rule{
				Scope: validator.Scope{Method: "tools/call"}, OnFailure: tt.onFailure,
			}))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := replay(t, Config{Tape: tape, Dialer: mock.New(target), Validator: v, Speed: scheduler.Speed{Mode: scheduler.Fast}})
			if err != nil {
				t.Fatal(err)
			}
			got := rep.Validation
			if got.Passed != tt.passed || got.Failed != tt.failed || got.Warnings != tt.warned || rep.Summary.Skipped != tt.skip {
				t.Errorf("passed/failed/warnings/skipped = %d/%d/%d/%d, want %d/%d/%d/%d",
					got.Passed, got.Failed, got.Warnings, rep.Summary.Skipped, tt.passed, tt.failed, tt.warned, tt.skip)
			}
		})
	}
}
