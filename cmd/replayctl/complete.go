package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/chaos"
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
	validationModes = []string{"exact", "structural\tsame shape and types", "partial\ta rule's required fields", "schema\tthe shape MCP requires"}
	logLevelNames   = []string{"debug", "info", "warn", "error"}
	logFormatsNames = []string{"console", "json"}
)

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
