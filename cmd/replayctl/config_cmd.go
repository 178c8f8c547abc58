package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/replay"
)

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print an example config file, or check one",
		Long: `The config file (run --config replay.yaml) holds a whole replay
configuration: speed, window, transformations, validation, error handling,
performance, chaos and thresholds. Flags override it.

  replayctl config example > replay.yaml    every key, commented
  replayctl config check replay.yaml        exit 2 and the file, line and key when it is wrong`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("unknown config command %q: want example or check (see replayctl config --help)", args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "example",
		Short: "Print a commented config file that sets every key",
		Args:  exactArgs(0, "config example"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(cmd.OutOrStdout(), config.Example())
			return err
		},
	}, &cobra.Command{
		Use:   "check FILE",
		Short: "Check a config file: exit 0 and a summary, or exit 2 and what is wrong",
		Args:  exactArgs(1, "config check FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := config.Load(args[0])
			if err != nil {
				return &exitError{code: exitBadInput, err: err}
			}
			if err := replay.CheckConfig(args[0], f); err != nil {
				return &exitError{code: exitBadInput, err: err}
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "ok: %d transformations, %d validation rules, %d thresholds\n",
				len(f.Transformations), len(f.Validation.Rules), len(f.Thresholds))
			return err
		},
	})
	return cmd
}
