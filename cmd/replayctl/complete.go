package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/validator"
)

// The values the shell completes for the flags that take a word; a
// description follows a value after a tab, as cobra shows it.
var (
	runSpeeds = []string{
		"realtime\tas recorded", "fast\tas fast as the target answers", "stepped\tone message per Enter",
		"10x\tten times the recorded pace", "fixed:50ms\tone message every 50ms", "rps:100\t100 messages a second",
	}
	debugSpeeds = []string{
		"fast\tas fast as the target answers", "realtime\tas recorded", "10x\tten times the recorded pace",
		"fixed:50ms\tone message every 50ms", "rps:5\t5 messages a second",
	}
	runOrders = []string{
		"causal\twait for the answers recorded before each message", "sequential\twait for every answer",
		"none\twait for nothing", "random\tcausal, client runs shuffled by --seed",
	}
	debugOrders     = runOrders[:3]
	outputs         = []string{"text", "json"}
	runOnErrors     = []string{"continue", "stop", "retry"}
	debugOnErrors   = []string{"pause", "continue"}
	logLevelNames   = []string{"debug", "info", "warn", "error"}
	logFormatsNames = []string{"console", "json"}
)

// validationModes are the --validation values, validator.Modes() with
// what each compares: contract only where a contract can be given
// (run --contract FILE); a mode with no description here has none.
func validationModes(withContract bool) []string {
	what := map[validator.Mode]string{
		validator.Structural: "same shape and types",
		validator.Partial:    "a rule's required fields",
		validator.Schema:     "the shape MCP requires",
		validator.Contract:   "the shape a contract says (--contract FILE)",
	}
	var out []string
	for _, m := range validator.Modes() {
		if m == validator.Contract && !withContract {
			continue
		}
		if d := what[m]; d != "" {
			out = append(out, string(m)+"\t"+d)
		} else {
			out = append(out, string(m))
		}
	}
	return out
}

// registerValues makes the shell complete the flag's values from values.
func registerValues(cmd *cobra.Command, flag string, values ...string) {
	register(cmd, flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// register sets the completion of a flag's values. The error is for a
// flag that does not exist or is registered twice: a mistake here.
func register(cmd *cobra.Command, flag string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(flag, f); err != nil {
		panic(err)
	}
}

// completeChaos completes a --chaos spec, kind=probability,…: after the
// last comma, the kinds not yet given, each with its "=" (no space after,
// the probability follows).
func completeChaos(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	if strings.Contains(last, "=") { // a probability: nothing to offer
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	given := map[string]bool{}
	for _, part := range strings.Split(done, ",") {
		kind, _, _ := strings.Cut(part, "=")
		given[kind] = true
	}
	var out []cobra.Completion
	for _, k := range chaos.Kinds() {
		if !given[string(k)] && strings.HasPrefix(string(k), last) {
			out = append(out, done+string(k)+"=")
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
