package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds Parse arbitrary bytes: it must return a config or an
// *Error with a line inside the input, never panic or hang.
func FuzzParse(f *testing.F) {
	f.Add([]byte(Example()))
	for _, name := range []string{"debug.yaml", "load.yaml", "chaos.yaml"} {
		if data, err := os.ReadFile(filepath.Join("..", "examples", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(mergeBomb()))
	f.Add([]byte("validation:\n  rules:\n    - &a {on_failure: warn}\n    - <<: *a\n"))
	f.Add([]byte("transformations:\n  - condition: {seq_range: [2, 1]}\n    action: {}\n"))
	f.Add([]byte("chaos: {faults: {timeout: .inf}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.yaml", data)
		if err == nil {
			if cfg == nil {
				t.Fatal("got a nil config and no error")
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("got %T %v, want an *Error", err, err)
		}
		if e.Msg == "" || e.Path != "fuzz.yaml" {
			t.Fatalf("got %+v, want a message and the path", e)
		}
	})
}
