package main

import (
	"os"

	"github.com/spf13/cobra"
)

// configNames are the config files run and debug read from the current
// folder when --config is not given.
var configNames = []string{"replayctl.yaml", ".replayctl.yaml"}

// noConfig is the --config value that reads no config file, not even
// one found in the current folder.
const noConfig = "none"

// configPath is the config file a replay reads: --config FILE; none for
// --config none; else replayctl.yaml or .replayctl.yaml in the current
// folder (both there is ambiguous: exit 2); else none ("").
func configPath(cmd *cobra.Command, given string) (string, error) {
	if cmd.Flags().Changed("config") {
		if given == noConfig {
			return "", nil
		}
		return given, nil
	}
	var found []string
	for _, name := range configNames {
		if fi, err := os.Stat(name); err == nil && !fi.IsDir() {
			found = append(found, name)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", usageError("both %s and %s are in the current folder: keep one, or choose with --config FILE (--config none: neither)", found[0], found[1])
}
