package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestExampleSetsEveryKey checks that Example parses and that every key of
// every section is set somewhere in it (a key of a list item, such as a
// condition's seq, in at least one item), so the example stays complete as
// keys are added.
func TestExampleSetsEveryKey(t *testing.T) {
	f, err := Parse("example.yaml", []byte(Example()))
	if err != nil {
		t.Fatalf("got %v, want Example() to parse", err)
	}
	set := map[string]bool{} // "Type.Field" → non-zero in some instance
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).Tag.Get("yaml") == "-" {
					continue // not a key of the file (File.SpeedValue: what Load read of one)
				}
				name := v.Type().Name() + "." + v.Type().Field(i).Name
				if !v.Field(i).IsZero() {
					set[name] = true
				} else if _, seen := set[name]; !seen {
					set[name] = false
				}
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(f))
	var unset []string
	for name, ok := range set {
		if !ok {
			unset = append(unset, name)
		}
	}
	slices.Sort(unset)
	if len(unset) > 0 {
		t.Errorf("got these keys never set in Example(), want every key set: %s", strings.Join(unset, ", "))
	}
	// Every struct type of the file was reached.
	for _, typ := range []string{"File", "Transformation", "Condition", "Action", "SetValue", "PathOnly", "Replace", "InjectError", "Rename", "Validation", "Tolerance", "ValidationRule", "ErrorHandling", "Performance", "Chaos", "ChaosTarget"} {
		found := false
		for name := range set {
			if strings.HasPrefix(name, typ+".") {
				found = true
			}
		}
		if !found {
			t.Errorf("got no %s in Example(), want one", typ)
		}
	}
	// Every enum value is named in the comments.
	for _, list := range [][]string{validationModes, onFailures, strategies, messageKinds, normalizers, faultKinds} {
		for _, v := range list {
			if !strings.Contains(Example(), v) {
				t.Errorf("got no %q in Example(), want every allowed value mentioned", v)
			}
		}
	}
}

// TestExamples checks the config files of examples/, one per job.
func TestExamples(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(*File) string // "" when the file is what the job needs
	}{
		{"debug.yaml", func(f *File) string {
			if f.Speed != "stepped" || len(f.Validation.Rules) == 0 || len(f.Transformations) == 0 {
				return "want speed stepped, validation rules and a transformation"
			}
			return ""
		}},
		{"load.yaml", func(f *File) string {
			if f.Speed != "10x" || f.Performance.Sessions < 2 || len(f.Thresholds) == 0 {
				return "want speed 10x, several sessions and thresholds"
			}
			return ""
		}},
		{"chaos.yaml", func(f *File) string {
			if f.Chaos.Seed == nil || len(f.Chaos.Faults) == 0 {
				return "want a seed and faults"
			}
			return ""
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("..", "examples", tc.file)
			f, err := Load(path)
			if err != nil {
				t.Fatalf("got %v, want %s to load", err, path)
			}
			if msg := tc.check(f); msg != "" {
				t.Errorf("got %+v, %s", f, msg)
			}
			data, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(data), "#") {
				t.Errorf("got no comment at the top of %s, want one saying what the config is for", path)
			}
		})
	}
}
