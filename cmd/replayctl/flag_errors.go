package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/internal/editdist"
)

// flagError is the root command's FlagErrorFunc: pflag's error in the
// CLI's words, exit status 2. A misspelt flag gets the flag meant
// ("unknown flag: --sesions: did you mean --sessions?"); a value a typed
// flag cannot parse says what the flag wants instead of strconv's or
// time's words.
func flagError(cmd *cobra.Command, err error) error {
	if derr := dashValue(cmd); derr != nil { // the words after it were read as flags
		return derr
	}
	var ne *pflag.NotExistError
	var ive *pflag.InvalidValueError
	switch {
	case errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "":
		if meant := closestFlag(cmd, ne.GetSpecifiedName()); meant != "" {
			return usageError("%w: did you mean --%s? (see %s --help)", err, meant, cmd.CommandPath())
		}
	case errors.As(err, &ive) && ive.GetFlag() != nil:
		fl := ive.GetFlag()
		if want := flagWants(fl); want != "" {
			return usageError("--%s %q: want %s", fl.Name, ive.GetValue(), want)
		}
		return usageError("--%s %q: %v", fl.Name, ive.GetValue(), ive.Unwrap())
	}
	return usageError("%w (see %s --help)", err, cmd.CommandPath())
}

// flagWants says what a flag of a plain type takes, with an example;
// "" for the others (their own Set says what is wrong).
func flagWants(fl *pflag.Flag) string {
	example := fl.DefValue
	switch fl.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		if example == "" || example == "0" {
			example = "10"
		}
		return fmt.Sprintf("a whole number, e.g. --%s %s", fl.Name, example)
	case "float32", "float64":
		return fmt.Sprintf("a number, e.g. --%s 0.5", fl.Name)
	case "duration":
		if example == "" || example == "0s" {
			example = "30s"
		}
		return fmt.Sprintf("a duration: a number and a unit (ms, s, m, h), e.g. --%s %s", fl.Name, example)
	case "bool":
		return fmt.Sprintf("true or false, e.g. --%s=false", fl.Name)
	}
	return ""
}

// closestFlag is the visible flag of cmd (its own or inherited) nearest
// to the misspelt name: within 2 edits, or the only one it starts;
// "" when none is.
func closestFlag(cmd *cobra.Command, name string) string {
	best, bestDist := "", 3
	var prefixed []string
	visit := func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		if d := editdist.Distance(name, fl.Name); d < bestDist {
			best, bestDist = fl.Name, d
		}
		if len(name) >= 3 && len(fl.Name) > len(name) && fl.Name[:len(name)] == name {
			prefixed = append(prefixed, fl.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}

// subcommandArgs is the Args rule of a command that has subcommands and
// takes no arguments of its own: a word that is not one of them is an
// unknown command, with the one meant when it looks like a typo
// ("unknown command "lst" for "replayctl history": did you mean "list"?").
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if meant := editdist.Closest(args[0], names); meant != "" {
		return usageError("unknown command %q for %q: did you mean %q? (see %s --help)", args[0], cmd.CommandPath(), meant, cmd.CommandPath())
	}
	return usageError("unknown command %q for %q: want one of %s (see %s --help)", args[0], cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())
}

// guardDashValues has every command of root refuse a flag whose value is
// "--": a flag given without its value before the server command
// ("run T --ui -- SERVER") takes the dash as its value, and the words
// after it would be read as arguments ("one TAPE at a time"). The check
// runs before each command's own argument rule.
func guardDashValues(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		// A command with no rule of its own keeps cobra's (the root's
		// "unknown command" with its suggestions).
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := dashValue(cmd); err != nil {
					return err
				}
				return args(cmd, a)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// dashValue names a flag of cmd that was given "--" as its value.
func dashValue(cmd *cobra.Command) error {
	var bad *pflag.Flag
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		vals := []string{fl.Value.String()}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		if bad == nil && slices.Contains(vals, "--") {
			bad = fl
		}
	})
	if bad == nil {
		return nil
	}
	return usageError("--%s took \"--\" as its value: give --%s a value (%s), before the server command's --", bad.Name, bad.Name, bad.Usage)
}
