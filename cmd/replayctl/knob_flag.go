package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/internal/knobs"
)

// addKnob registers the flag of the knob name into p, with the default
// and usage the knobs table gives it for command (a path under replayctl:
// "run", "kube render"; "" for the table's own, where several commands
// share one registration). p's type is the flag's: *int, *int64,
// *time.Duration, *string, *bool, *[]string (repeatable), *byteSize or *byteSizeOrZero (a size
// whose flag documents 0).
func addKnob(fl *pflag.FlagSet, command, name string, p any) {
	k := knobs.Get(name)
	def, doc, ok := k.Default, k.Doc, true
	if command != "" {
		def, doc, ok = k.For(command)
	}
	if !ok {
		panic(fmt.Sprintf("addKnob: the knobs table does not list --%s for %s", name, command))
	}
	switch p := p.(type) {
	case *int:
		fl.IntVar(p, name, def.(int), doc)
	case *int64:
		fl.Int64Var(p, name, def.(int64), doc)
	case *time.Duration:
		fl.DurationVar(p, name, def.(time.Duration), doc)
	case *string:
		fl.StringVar(p, name, def.(string), doc)
	case *bool:
		fl.BoolVar(p, name, def.(bool), doc)
	case *[]string:
		fl.StringArrayVar(p, name, def.([]string), doc)
	case *byteSize:
		*p = byteSize(def.(knobs.Size))
		fl.Var(p, name, doc)
	case *byteSizeOrZero:
		*p = byteSizeOrZero(def.(knobs.Size))
		fl.Var(p, name, doc)
	default:
		panic(fmt.Sprintf("addKnob: --%s into a %T", name, p))
	}
}

// knobFlagOf is names (option → flag) with each knob's replay options
// named after its flag; a method option (replay.Target.WithHTTPClient)
// by its method's name, as an *OptionError names it.
func knobFlagOf(names map[string]string) map[string]string {
	for _, k := range knobs.Table {
		for _, opt := range k.Options {
			if fn, ok := strings.CutPrefix(opt, "replay."); ok && k.NoFlag == "" {
				names[fn[strings.LastIndexByte(fn, '.')+1:]] = "--" + k.Name
			}
		}
	}
	return names
}
