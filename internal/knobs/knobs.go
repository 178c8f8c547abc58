package knobs

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Knob is one setting, as every front end spells it.
type Knob struct {
	// Name is the flag's name ("max-inflight"), and the knob's.
	Name string
	// Doc is the flag's usage, one line.
	Doc string
	// Default is the flag's default, typed: int, int64, time.Duration,
	// string, bool, Size, or []string (nil: a repeatable flag).
	Default any
	// Commands are the commands whose flag has Doc and Default, by path
	// under replayctl ("run", "kube render").
	Commands []string
	// Variants are the commands whose flag of this name differs from Doc or
	// Default, each with its reason.
	Variants []Variant
	// NoFlag says why the knob has no flag ("" when it has one).
	NoFlag string
	// ConfigKey is its key in the config file ("performance.max_inflight"),
	// "" when the file has none.
	ConfigKey string
	// Options are its library options, "package.Func"
	// ("replay.MaxInflight").
	Options []string
	// Said is how docs write the default (any one of them): each option's
	// doc comment, the config example's "(default …)" and the README's.
	// Empty: the default is "off" or "none" and need not be said.
	Said []string
	// NoConfig says why the config file has no key for it ("" when
	// ConfigKey is set).
	NoConfig string
	// NoOption says why no library option sets it ("" when Options are
	// given).
	NoOption string
	// Renamed says why the config key's last part is not the flag's name
	// with "_" for "-", or an option's name not the flag's in CamelCase
	// (after a With or Stdio prefix).
	Renamed string
}

// Variant is a command whose flag differs from its knob's Doc or Default.
type Variant struct {
	Command string
	Default any    // nil: the knob's
	Doc     string // "": the knob's
	Why     string
}

// Size is a number of bytes, shown with a binary unit ("16MiB") as the
// CLI's size flags show it.
type Size int

// String is the size in the largest binary unit it is a whole number of.
func (s Size) String() string {
	n := int(s)
	for _, u := range []struct {
		name string
		size int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.Itoa(n/u.size) + u.name
		}
	}
	return strconv.Itoa(n)
}

// Get is the knob named name; it panics when there is none (a name in the
// program, not a user's).
func Get(name string) Knob {
	i := slices.IndexFunc(Table, func(k Knob) bool { return k.Name == name })
	if i < 0 {
		panic(fmt.Sprintf("knobs: no knob %q", name))
	}
	return Table[i]
}

// For is the default and usage of the knob's flag in command (a path under
// replayctl, "run", "kube render"); ok is false when the command does not
// take the flag.
func (k Knob) For(command string) (def any, doc string, ok bool) {
	if slices.Contains(k.Commands, command) {
		return k.Default, k.Doc, true
	}
	for _, v := range k.Variants {
		if v.Command != command {
			continue
		}
		def, doc = k.Default, k.Doc
		if v.Default != nil {
			def = v.Default
		}
		if v.Doc != "" {
			doc = v.Doc
		}
		return def, doc, true
	}
	return nil, "", false
}

// Int is the default of an int knob.
func (k Knob) Int() int { return k.Default.(int) }

// Duration is the default of a duration knob.
func (k Knob) Duration() time.Duration { return k.Default.(time.Duration) }

// Text is the default of a string knob.
func (k Knob) Text() string { return k.Default.(string) }

// Kind is the flag type a default of this Go type takes, as pflag's
// Value.Type names it: "int", "int64", "duration", "string", "bool",
// "size", "stringArray".
func Kind(def any) string {
	switch def.(type) {
	case int:
		return "int"
	case int64:
		return "int64"
	case time.Duration:
		return "duration"
	case string:
		return "string"
	case bool:
		return "bool"
	case Size:
		return "size"
	case []string:
		return "stringArray"
	}
	panic(fmt.Sprintf("knobs: a default of type %T", def))
}

// DefValue is def as pflag shows a flag's default (Flag.DefValue).
func DefValue(def any) string {
	switch d := def.(type) {
	case int:
		return strconv.Itoa(d)
	case int64:
		return strconv.FormatInt(d, 10)
	case time.Duration:
		return d.String()
	case string:
		return d
	case bool:
		return strconv.FormatBool(d)
	case Size:
		return d.String()
	case []string:
		return "[]"
	}
	panic(fmt.Sprintf("knobs: a default of type %T", def))
}
