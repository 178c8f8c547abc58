package knobs

import (
	"testing"
	"time"
)

// TestTable: names are unique, and each knob's defaults are of a kind a
// flag takes.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Table {
		if seen[k.Name] {
			t.Errorf("knob %s twice", k.Name)
		}
		seen[k.Name] = true
		_ = Kind(k.Default) // panics on a type no flag takes
		for _, v := range k.Variants {
			if v.Default != nil {
				_ = Kind(v.Default)
			}
		}
	}
}

func TestFor(t *testing.T) {
	k := Knob{Name: "x", Doc: "doc", Default: 1, Commands: []string{"run"},
		Variants: []Variant{{Command: "debug", Default: 2, Why: "w"}, {Command: "shrink", Doc: "other", Why: "w"}}}
	for _, tt := range []struct {
		command string
		def     any
		doc     string
		ok      bool
	}{
		{"run", 1, "doc", true},
		{"debug", 2, "doc", true},
		{"shrink", 1, "other", true},
		{"serve", nil, "", false},
	} {
		def, doc, ok := k.For(tt.command)
		if def != tt.def || doc != tt.doc || ok != tt.ok {
			t.Errorf("For(%s) = %v, %q, %v; want %v, %q, %v", tt.command, def, doc, ok, tt.def, tt.doc, tt.ok)
		}
	}
}

func TestDefValue(t *testing.T) {
	for _, tt := range []struct {
		def  any
		want string
		kind string
	}{
		{1000, "1000", "int"},
		{int64(0), "0", "int64"},
		{30 * time.Second, "30s", "duration"},
		{"causal", "causal", "string"},
		{false, "false", "bool"},
		{Size(16 << 20), "16MiB", "size"},
		{Size(1000), "1000", "size"},
		{[]string(nil), "[]", "stringArray"},
	} {
		if got := DefValue(tt.def); got != tt.want {
			t.Errorf("DefValue(%v) = %q, want %q", tt.def, got, tt.want)
		}
		if got := Kind(tt.def); got != tt.kind {
			t.Errorf("Kind(%v) = %q, want %q", tt.def, got, tt.kind)
		}
	}
}

func TestGet(t *testing.T) {
	if got := Get("max-inflight").Int(); got != 1000 {
		t.Errorf("max-inflight: %d, want 1000", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Get of no knob did not panic")
		}
	}()
	Get("nope")
}
