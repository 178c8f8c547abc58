package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/replay"
)

// TestRunMatchesLibrary: `replayctl run` and replay.Run given the same
// inputs give the same report, but for what a clock measures.
func TestRunMatchesLibrary(t *testing.T) {
	tests := []struct {
		name string
		args []string
		opts []replay.Option
	}{
		{"mock", []string{"examples/quickstart.jsonl", "--speed", "fast"},
			[]replay.Option{replay.WithSpeed(replay.Fast())}},
		{"sessions", []string{"examples/quickstart.jsonl", "--speed", "fast", "--sessions", "3", "--ignore", "result.content"},
			[]replay.Option{replay.WithSpeed(replay.Fast()), replay.Sessions(3), replay.Ignore("result.content")}},
		{"config with chaos", []string{"examples/quickstart.jsonl", "--config", "examples/chaos.yaml", "--threshold", "p99<1s"},
			[]replay.Option{replay.ConfigFile("examples/chaos.yaml"), replay.Thresholds("p99<1s")}},
		{"chaos seed", []string{"examples/quickstart.jsonl", "--speed", "fast", "--chaos", "malformed=0.3,error-response=0.2", "--seed", "7"},
			[]replay.Option{replay.WithSpeed(replay.Fast()), replay.Chaos("malformed=0.3,error-response=0.2"), replay.Seed(7)}},
		{"other mock tape", []string{"examples/quickstart.jsonl", "--speed", "fast", "--mock-tape", "examples/everything.jsonl"},
			[]replay.Option{replay.WithSpeed(replay.Fast()), replay.Against(replay.MockTape("examples/everything.jsonl"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := replayctl(t, append(append([]string{"run"}, tt.args...), "-o", "json")...)
			t.Chdir("../..") // where the binary runs
			rep, err := replay.Run(context.Background(), "examples/quickstart.jsonl", tt.opts...)
			if rep == nil {
				t.Fatalf("replay.Run: %v", err)
			}
			if code := rep.ExitStatus(); code != res.code {
				t.Errorf("exit status: CLI %d, library %d\n%s", res.code, code, res.stderr)
			}
			var lib bytes.Buffer
			if err := rep.WriteJSON(&lib); err != nil {
				t.Fatal(err)
			}
			cli, got := untimed(t, []byte(res.stdout)), untimed(t, lib.Bytes())
			if !reflect.DeepEqual(cli, got) {
				c, _ := json.MarshalIndent(cli, "", " ")
				g, _ := json.MarshalIndent(got, "", " ")
				t.Errorf("reports differ\nCLI:\n%s\nlibrary:\n%s", c, g)
			}
		})
	}
}

// place orders the entries of a list by session and seq, where they have
// them.
func place(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	seq, _ := m["seq"].(float64)
	return fmt.Sprintf("%v/%012.0f", m["session"], seq)
}

// untimed decodes a JSON report and removes what a clock measures (times,
// latencies, rates, the histograms, thresholds' measured values (value and actual), the order concurrent
// sessions interleave in) and what each run makes anew (its id).
func untimed(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, b)
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				_, threshold := x["expr"] // a threshold's "actual" is measured; a difference's is not
				if strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, "_per_s") || k == "run_id" || k == "latency_histogram" || k == "histograms" || k == "started_at" || k == "finished_at" || k == "value" || (threshold && k == "actual") {
					delete(x, k)
					continue
				}
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
			// Concurrent sessions interleave as the clock has it.
			slices.SortStableFunc(x, func(a, b any) int { return strings.Compare(place(a), place(b)) })
		}
	}
	strip(v)
	return v
}
