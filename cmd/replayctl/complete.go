package main

import "github.com/spf13/cobra"

// registerValues makes the shell complete the flag's values from values
// (a description may follow a value after a tab, as cobra shows it).
func registerValues(cmd *cobra.Command, flag string, values ...string) {
	// The error is for a flag that does not exist: a mistake here.
	if err := cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)); err != nil {
		panic(err)
	}
}
