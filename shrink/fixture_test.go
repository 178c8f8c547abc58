package shrink_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the tapes in testdata from their generators")

// fixtureABC is where the bug session of planted-abc.jsonl calls a, b
// and c.
var fixtureABC = [3]int{5, 12, 20}

// fixtures are the tapes in testdata that README.md and BENCHMARKS.md
// shrink, each with its generator.
var fixtures = map[string]func(testing.TB) []byte{
	// 20 sessions, 503 calls: the a-b-c crash of planted -abc boom in s7.
	"planted-abc.jsonl": func(t testing.TB) []byte { return plantedTape(t, abcSessions(20, 25, 6, 7, fixtureABC)) },
	// 4 sessions of 20 calls of a, b, d and pay, for planted -dup pay.
	"pay.jsonl": func(t testing.TB) []byte { return plantedTape(t, paySessions()) },
}

// paySessions are 4 sessions of 20 seeded calls of a, b, d and pay.
func paySessions() [][]call {
	r := rand.New(rand.NewPCG(3, 4))
	tools := []string{"a", "b", "d", "pay"}
	sessions := make([][]call, 4)
	for i := range sessions {
		for range 20 {
			sessions[i] = append(sessions[i], call{tools[r.IntN(len(tools))], "x"})
		}
	}
	return sessions
}

// TestFixtures: the tapes in testdata are what their generators make
// (go test -run TestFixtures -update ./shrink/ rewrites them).
func TestFixtures(t *testing.T) {
	for name, gen := range fixtures {
		path := filepath.Join("testdata", name)
		want := gen(t)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -run TestFixtures -update ./shrink/ writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator: go test -run TestFixtures -update ./shrink/", path)
		}
	}
}
