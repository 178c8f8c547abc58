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
  replayctl config check replay.yaml        exit 2 and the file, line and key when run would refuse it
  replayctl config check --for debug F      the same, for replayctl debug`,
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
	}, a.configCheckCommand())
	return cmd
}

// configCheckCommand is `config check`: the checks a replay makes of its
// config (replay.CheckConfig), for run or for debug, so that what check
// accepts the command accepts too.
func (a *app) configCheckCommand() *cobra.Command {
	var forCmd string
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Check a config file as run (or debug) would: exit 0 and a summary, or exit 2 and what is wrong",
		Long: `Check a config file as replayctl run reads it (--for debug: as replayctl
debug does): exit 0 and a summary, or exit 2 and the file, line and key of
what the command would refuse. The two differ: run refuses
error_handling.strategy pause, which only a debug session can resume, and
debug refuses performance.sessions above 1.

Environment variables the transformations read (${env.NAME}) need not be
set here; those that are not are listed, as run refuses the file without
them.`,
		Args: exactArgs(1, "config check FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts []replay.Option
			switch forCmd {
			case "run":
			case "debug":
				opts = append(opts, replay.Controlled())
			default:
				return usageError("--for %q: want run or debug", forCmd)
			}
			path := args[0]
			f, err := config.Load(path)
			if err != nil {
				return &exitError{code: exitBadInput, err: err}
			}
			if err := replay.CheckConfig(path, f, opts...); err != nil {
				if forCmd == "run" && replay.CheckConfig(path, f, replay.Controlled()) == nil {
					err = fmt.Errorf("%w; replayctl debug takes the file as it is (config check --for debug)", err)
				}
				return &exitError{code: exitBadInput, err: err}
			}
			for _, name := range replay.MissingEnv(f) {
				fmt.Fprintf(a.stderr, "note: ${env.%s} is not set here; %s refuses the file where it is not\n", name, forCmd)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "ok: %d transformations, %d validation rules, %d thresholds\n",
				len(f.Transformations), len(f.Validation.Rules), len(f.Thresholds))
			return err
		},
	}
	cmd.Flags().StringVar(&forCmd, "for", "run", "check the file as this command reads it: run or debug")
	return cmd
}
