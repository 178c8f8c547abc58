package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/tape"
)

func (a *app) redactCommand() *cobra.Command {
	var maxLine, maxDoc int
	var force bool
	cmd := &cobra.Command{
		Use:   "redact IN OUT.jsonl",
		Short: "Take secrets out of a tape",
		Long: `Write a copy of the tape IN (any format replayctl reads) as a native tape
OUT with its secrets replaced by markers that say what was there:

  [redacted:env:NAME]   the value of $NAME (--redact-env NAME), wherever it
                        appears inside a string, also JSON-escaped; the rest
                        of the string is kept. A replay (replayctl run) puts
                        $NAME's value back in the messages it sends when
                        NAME is set, and warns when it is not.
  [redacted:key:TYPE]   the whole value (string, number, object or array)
                        of a member whose name matches a key glob, at any
                        depth. Replays send the marker; the validator takes
                        a marker as "any value of that TYPE".
  [redacted:header]     the value of a credential HTTP header.

Key globs compare names case-insensitively with '-' and '_' ignored; '*'
matches any run of characters. The defaults: ` + strings.Join(tape.DefaultKeyGlobs, ", ") + `,
and ` + strings.Join(tape.SensitiveNames(), ", ") + `;
not ` + strings.Join(tape.DefaultKeyExceptions, ", ") + ` (not secrets). Headers: those
names, and every header the key globs match.

Only the replaced values change: every other byte of a message is kept. OUT
is written atomically and may be IN itself (replaced once it has been read);
another file that exists is refused unless --force. What was replaced is counted on
stderr, by kind and name, never with a value.`,
		Example: `  GITHUB_TOKEN=ghp_… replayctl redact session.jsonl clean.jsonl --redact-env GITHUB_TOKEN
  replayctl redact session.jsonl session.jsonl --redact-key '*_pin'`,
		Args: exactArgs(2, "redact IN OUT.jsonl [--redact-env NAME]... [--redact-key GLOB]..."),
	}
	redactor := addRedactFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		in, out := args[0], args[1]
		if filepath.Ext(out) != ".jsonl" {
			return usageError("redact: %s: only the native format (.jsonl) can be written", out)
		}
		if _, err := os.Stat(in); err != nil && in != "-" { // before OUT: a missing IN is named as such
			return swappedArgs("redact", in, out, inputMissing("redact", in, err))
		}
		// OUT may be IN: OUT replaces it atomically once it has been read through.
		if err := refuseExisting("redact", "OUT", out, force || sameFile(in, out)); err != nil {
			return err
		}
		red, err := redactor()
		if err != nil {
			return err
		}
		r, err := a.rewriteTape(cmd.Context(), in, out, []tape.Option{tape.WithMaxLine(maxLine), tape.WithMaxDocument(maxDoc)}, func(ctx context.Context, r *tape.Reader) error {
			return tape.RedactFile(ctx, out, r, red)
		})
		if err != nil {
			return err
		}
		defer r.Close()
		for _, w := range r.Warnings() {
			a.log.Warn().Msg(w)
		}
		printCounts(cmd.ErrOrStderr(), out, red.Counts())
		return nil
	}
	addKnob(cmd.Flags(), "redact", "max-line", (*byteSize)(&maxLine))
	addKnob(cmd.Flags(), "redact", "max-document", (*byteSize)(&maxDoc))
	cmd.Flags().BoolVar(&force, "force", false, "overwrite OUT if it exists (IN itself needs no --force)")
	return cmd
}

// addRedactFlags adds the redaction flags to cmd (redact, record, serve
// share them) and returns what builds the Redactor they ask for, once the
// flags are parsed. Its errors are usage errors (exit status 2): a bad
// name or glob, an environment variable unset or too short to be a
// secret.
func addRedactFlags(cmd *cobra.Command) func() (*tape.Redactor, error) {
	options := addRedactOptions(cmd)
	return func() (*tape.Redactor, error) {
		_, r, err := options()
		return r, err
	}
}

// addRedactOptions is addRedactFlags for a caller that builds the
// Redactor itself (run --rerecord, with more options of its own): what
// it returns gives the flags' options, checked by building the Redactor
// they ask for (returned too), with addRedactFlags's errors.
func addRedactOptions(cmd *cobra.Command) func() ([]tape.RedactOption, *tape.Redactor, error) {
	var env, keys, headers []string
	keep := true
	f := cmd.Flags()
	f.StringArrayVar(&env, "redact-env", nil, "an environment variable whose value is a secret: replaced by [redacted:env:NAME] wherever it appears (repeatable)")
	f.StringArrayVar(&keys, "redact-key", nil, "a glob of member names whose values are secrets, e.g. '*_pin' (repeatable; added to the defaults)")
	f.StringArrayVar(&headers, "redact-header", nil, "an HTTP header whose value is a secret (repeatable; added to the defaults)")
	f.BoolVar(&keep, "keep-defaults", true, "keep the default key globs and headers (false: only those given)")
	return func() ([]tape.RedactOption, *tape.Redactor, error) {
		opts := []tape.RedactOption{tape.RedactEnv(env...), tape.RedactKeys(keys...), tape.RedactHeaders(headers...), tape.KeepDefaults(keep)}
		r, err := tape.NewRedactor(opts...)
		if err != nil {
			return nil, nil, usageError("%w", err)
		}
		if m := r.Missing(); len(m) > 0 {
			return nil, nil, usageError("--redact-env %s: not set (or empty) in the environment: set it to the secret's value, or leave the flag out", strings.Join(m, ", "))
		}
		return opts, r, nil
	}
}

// printCounts says what a redaction replaced, by kind and name.
func printCounts(w io.Writer, out string, c tape.Counts) {
	var b strings.Builder
	noun := "values"
	if c.Total() == 1 {
		noun = "value"
	}
	fmt.Fprintf(&b, "wrote %s: %d %s redacted\n", out, c.Total(), noun)
	for _, kind := range []struct {
		name string
		m    map[string]int
	}{{"env", c.Env}, {"key", c.Keys}, {"header", c.Headers}} {
		names := make([]string, 0, len(kind.m))
		for n := range kind.m {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintf(&b, "  %-6s %-24s %d\n", kind.name, n, kind.m[n])
		}
	}
	io.WriteString(w, b.String())
}
