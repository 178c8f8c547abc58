package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/config"
	"github.com/replayctl/replayctl/contract"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/tapediff"
	"github.com/replayctl/replayctl/validator"
)

// errBreaking is diff --fail-on-breaking finding a breaking change:
// exit 1, the changes already printed.
var errBreaking = fmt.Errorf("breaking changes found: %w", errReported)

func (a *app) diffCommand() *cobra.Command {
	var (
		maxLine        int
		maxDoc         int
		output         string
		failOnBreaking bool
		ignore         []string
		configPath     string
	)
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Say what changed between two tapes of the same client script, or two contracts",
		Long: `Compare two tapes of the same client script — recorded, say, against version 1
and version 2 of a server — and say what was added, removed or changed, per
method and per tool, resource and prompt, breaking changes first.

Requests are paired by session and order per method and params (not by seq):
the k-th tools/call of "echo" with the same arguments in A goes with the k-th
in B. Then compared: the handshake (protocol version, capabilities,
serverInfo), the catalogs of tools/list, resources/list,
resources/templates/list and prompts/list (tool schemas keyword by keyword,
prompt arguments), and every pair's answer, with the validator's normalisers
(uuid and timestamp unless --config says otherwise), so that volatile values
do not count.

Breaking: a tool, resource, resource template or prompt removed; a required
input field added or a parameter made required; a property removed from an
input or output schema; a schema type changed; a result now an error (a
JSON-RPC error, or a tool result with isError true); an answer gone; a
capability removed; the protocol version changed.

--config FILE takes the validation section of a replay config:
normalize, ignore_fields and tolerance. --ignore adds paths not compared
(result.content[*].annotations, **.timestamp, result.tools[*].annotations).
Values whose names hold credentials (authorization, token, password, …) are
printed as [redacted].

-o json prints one object: summary {messages_a, messages_b, requests_a,
requests_b, paired, unpaired_a, unpaired_b, changes, breaking,
non_breaking, by_kind}, changes [{kind, breaking, method, name, path, a, b,
detail, session, seq_a, seq_b}] (a and b absent on the side that has no
value; seq -1 for none) and unpaired [{side, session, seq, line, dir,
method, name}].

Two contracts (replayctl contract) are compared too: tools, resources and
prompts added or removed, their input schemas member by member, their
inferred output schemas path by path (types, members, enums, formats).
Breaking: something removed; in an output, a type A did not allow, a member
A always had that B may lack, a string outside A's enum, a format lost or
changed; in an input, a member removed, newly required or retyped.

Exit status: 0 compared (whatever changed), 1 with --fail-on-breaking and a
breaking change, 2 bad usage or a tape or config that cannot be read.`,
		Example: `  replayctl diff v1.jsonl v2.jsonl
  replayctl diff v1.jsonl v2.jsonl --fail-on-breaking -o json
  replayctl diff v1.jsonl v2.jsonl --ignore 'result.content[*].text' --config replay.yaml`,
		Args: exactArgs(2, "diff A B"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError("-o %q: want text or json", output)
			}
			contracts, err := contractsOf(args)
			if err != nil {
				return err
			}
			if contracts != nil {
				if len(ignore) > 0 || configPath != "" {
					return usageError("diff: --ignore and --config say how tapes' answers compare, not contracts: leave them out")
				}
				changes := contract.Diff(contracts[0], contracts[1])
				if err := writeContractDiff(cmd.OutOrStdout(), args, changes, output); err != nil {
					return err
				}
				if failOnBreaking && slices.ContainsFunc(changes, func(c contract.Change) bool { return c.Breaking }) {
					return errBreaking
				}
				return nil
			}
			v, err := diffValidator(configPath, ignore)
			if err != nil {
				return err
			}
			if args[0] == "-" && args[1] == "-" {
				return usageError("diff: stdin (-) can be one of the tapes, not both")
			}
			ctx := cmd.Context()
			sides := make([]tapediff.Side, 2)
			for i, path := range args {
				if sides[i], err = a.readSide(ctx, path, tape.WithMaxLine(maxLine), tape.WithMaxDocument(maxDoc)); err != nil {
					if ctx.Err() != nil {
						return interrupted("")
					}
					return err
				}
			}
			res, err := tapediff.Compare(sides[0], sides[1], tapediff.WithValidator(v))
			if err != nil {
				return &exitError{code: exitBadInput, err: err}
			}
			maskChanges(res.Changes)
			if output == "json" {
				if err := writeDiffJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			} else if err := writeDiffText(cmd.OutOrStdout(), sides, res, painter(colorOn(a.stdout))); err != nil {
				return err
			}
			if failOnBreaking && res.Summary.Breaking > 0 {
				return errBreaking
			}
			return nil
		},
	}
	fl := cmd.Flags()
	addKnob(fl, "diff", "max-line", (*byteSize)(&maxLine))
	addKnob(fl, "diff", "max-document", (*byteSize)(&maxDoc))
	fl.StringVarP(&output, "output", "o", "text", "text (grouped, breaking first) or json (one object)")
	fl.BoolVar(&failOnBreaking, "fail-on-breaking", false, "exit 1 when a breaking change is found")
	fl.StringArrayVar(&ignore, "ignore", nil, "a path not compared, e.g. result.content[*].annotations or **.timestamp (repeatable)")
	fl.StringVar(&configPath, "config", "", "a replay config whose validation section (normalize, ignore_fields, tolerance) says how values compare")
	registerValues(cmd, "output", outputs...)
	return cmd
}

// diffValidator is the validator of the config file's validation section
// at path (none: the default normalisers), with the --ignore paths.
func diffValidator(path string, ignore []string) (*validator.Validator, error) {
	var file *config.File
	if path != "" {
		f, err := config.Load(path)
		if err != nil {
			return nil, &exitError{code: exitBadInput, err: err}
		}
		file = f
	}
	var opts []validator.Option
	if file == nil || len(file.Validation.Normalize) == 0 {
		opts = append(opts, validator.WithNormalize(tapediff.DefaultNormalizers...))
	}
	v, err := replay.Validator(file, ignore, opts...)
	if err != nil {
		where := "--ignore"
		if path != "" {
			where = path + " (or --ignore)"
		}
		return nil, &exitError{code: exitBadInput, err: fmt.Errorf("%s: %w", where, err)}
	}
	return v, nil
}

// readSide reads the whole tape at path. It returns early, with ctx's
// error, when ctx is done.
func (a *app) readSide(ctx context.Context, path string, opts ...tape.Option) (tapediff.Side, error) {
	r, err := a.openTapeArg(ctx, path, opts...)
	if err != nil {
		return tapediff.Side{}, err
	}
	defer r.Close()
	s := tapediff.Side{Name: path, Header: r.Header()}
	for {
		if err := ctx.Err(); err != nil {
			return tapediff.Side{}, err
		}
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return tapediff.Side{}, err
		}
		s.Messages = append(s.Messages, m)
	}
}

// maskChanges hides credentials in the values of changes, as a report
// does: a value under a sensitive name (tape.Sensitive), or a member of
// one inside a value, is printed as [redacted].
func maskChanges(cs []tapediff.Change) {
	for i, c := range cs {
		cs[i].A, cs[i].B = tape.MaskDifference(c.Path, c.A, c.B)
	}
}

// writeDiffJSON prints res as one JSON object (see diff --help).
func writeDiffJSON(w io.Writer, res tapediff.Result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
