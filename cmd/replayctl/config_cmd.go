package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/validator"
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
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
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
	var forCmd, output string
	var allowMissingEnv bool
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Check a config file as run (or debug) would: exit 0 and a summary, or exit 2 and what is wrong",
		Long: `Check a config file as replayctl run reads it (--for debug: as replayctl
debug does): exit 0 and a summary, or exit 2 and the file, line and key of
what the command would refuse. The two differ: run refuses
error_handling.strategy pause, which only a debug session can resume, and
debug refuses performance.sessions above 1.

Environment variables the transformations read (${env.NAME}) must be set,
as the command refuses the file without them: an unset one is an error,
exit 2. With --allow-missing-env (to check a file where its secrets are
not set) those that are not set are listed instead, exit 0.

What the file allows but doubts (an ignore path "$" or "**", which
ignores every answer whole) is printed as a warning, exit 0.

-o json prints one JSON object: {"ok":true, "file", "for",
"transformations", "validation_rules", "thresholds", "missing_env",
"warnings"}, or
{"ok":false, "file", "line", "key", "error"} (line and key when known)
with exit status 2.`,
		Args: exactArgs(1, "config check FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError("-o %q: want text or json", output)
			}
			var opts []replay.Option
			switch forCmd {
			case "run":
			case "debug":
				opts = append(opts, replay.Control())
			default:
				return usageError("--for %q: want run or debug", forCmd)
			}
			path := args[0]
			res, err := checkConfig(path, forCmd, allowMissingEnv, opts)
			if output == "json" {
				if err := writeJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			}
			if err != nil && len(res.Errors) > 1 {
				if output == "text" {
					for _, e := range res.Errors {
						fmt.Fprintln(a.errOut, e.Error)
					}
				}
				return &exitError{code: exitBadInput, err: fmt.Errorf("config check: %d errors in %s", len(res.Errors), path)}
			}
			if err != nil {
				return &exitError{code: exitBadInput, err: err}
			}
			if output == "json" {
				return nil
			}
			for _, w := range res.Warnings {
				fmt.Fprintf(a.stderr, "warning: %s\n", w.Error)
			}
			for _, name := range res.MissingEnv {
				fmt.Fprintf(a.stderr, "note: ${env.%s} is not set here; %s refuses the file where it is not\n", name, forCmd)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "ok: %d transformations, %d validation rules, %d thresholds\n",
				res.Transformations, res.ValidationRules, res.Thresholds)
			return err
		},
	}
	cmd.Flags().StringVar(&forCmd, "for", "run", "check the file as this command reads it: run or debug")
	cmd.Flags().BoolVar(&allowMissingEnv, "allow-missing-env", false, "take a file whose ${env.NAME} are not set here, listing them (as where its secrets are not)")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	registerValues(cmd, "for", "run", "debug")
	registerValues(cmd, "output", outputs...)
	return cmd
}

// configCheck is what config check found, as -o json prints it: line,
// key and error are the first error's, errors lists them all.
type configCheck struct {
	OK   bool   `json:"ok"`
	File string `json:"file"`
	For  string `json:"for"`
	*ConfigCounts
	Line   int           `json:"line,omitempty"`
	Key    string        `json:"key,omitempty"`
	Error  string        `json:"error,omitempty"`
	Errors []configError `json:"errors,omitempty"`
}

// configError is one error of a config file.
type configError struct {
	Line  int    `json:"line,omitempty"`
	Key   string `json:"key,omitempty"`
	Error string `json:"error"`
}

// lineOrLast orders an error with no line after every other.
func lineOrLast(line int) int {
	if line == 0 {
		return math.MaxInt
	}
	return line
}

// eachError lists the errors err joins (errors.Join, nested), or err.
func eachError(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, eachError(e)...)
		}
		return out
	}
	return []error{err}
}

// ConfigCounts is what a file that checks holds (exported, as encoding/json
// fills in an embedded pointer only to an exported type).
type ConfigCounts struct {
	Transformations int           `json:"transformations"`
	ValidationRules int           `json:"validation_rules"`
	Thresholds      int           `json:"thresholds"`
	MissingEnv      []string      `json:"missing_env,omitempty"`
	Warnings        []configError `json:"warnings,omitempty"` // what the file allows but doubts (ignore_fields "$")
}

// checkConfig loads and checks the config file at path as the command
// forCmd reads it (with opts), and says what it found; the error is
// also in the result, with its line and key when known. An unset
// ${env.NAME} is an error, as for the command, unless allowMissingEnv.
func checkConfig(path, forCmd string, allowMissingEnv bool, opts []replay.Option) (configCheck, error) {
	res := configCheck{File: path, For: forCmd}
	fail := func(err error) (configCheck, error) {
		for _, e := range eachError(err) {
			line, key := whereInConfig(e)
			res.Errors = append(res.Errors, configError{Line: line, Key: key, Error: e.Error()})
		}
		// In file order; one with no line (the file, "and N more") last.
		slices.SortStableFunc(res.Errors, func(a, b configError) int {
			return cmp.Compare(lineOrLast(a.Line), lineOrLast(b.Line))
		})
		res.Line, res.Key, res.Error = res.Errors[0].Line, res.Errors[0].Key, res.Errors[0].Error
		return res, err
	}
	f, err := config.Load(path)
	if err != nil {
		return fail(err)
	}
	if err := replay.CheckConfig(path, f, opts...); err != nil {
		if forCmd == "run" && replay.CheckConfig(path, f, replay.Control()) == nil {
			err = fmt.Errorf("%w; replayctl debug takes the file as it is (config check --for debug)", err)
		}
		return fail(err)
	}
	if !allowMissingEnv {
		if err := replay.CheckEnv(path, f); err != nil {
			return fail(err)
		}
	}
	res.OK = true
	res.ConfigCounts = &ConfigCounts{
		Transformations: len(f.Transformations), ValidationRules: len(f.Validation.Rules), Thresholds: len(f.Thresholds),
		MissingEnv: replay.MissingEnv(f),
	}
	for _, w := range f.Warnings {
		res.Warnings = append(res.Warnings, configError{Line: w.Line, Key: w.Key, Error: w.Error()})
	}
	return res, nil
}

// whereInConfig is the line and the key of the config file an error is
// about, as far as it says (0 and "" when it does not).
func whereInConfig(err error) (line int, key string) {
	var ce *config.Error
	var re *replay.ConfigError
	var vr *validator.RuleError
	var tr *transformer.RuleError
	switch {
	case errors.As(err, &ce):
		return ce.Line, ce.Key
	case errors.As(err, &re):
		key = re.Section
	}
	switch {
	case errors.As(err, &vr):
		line = vr.Line
		key = cmp.Or(key, "validation") + fmt.Sprintf(".rules[%d]", vr.Index)
	case errors.As(err, &tr):
		line = tr.Line
		key = cmp.Or(key, "transformations") + fmt.Sprintf("[%d]", tr.Index)
	}
	return line, key
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
