package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/tape"
)

func (a *app) convertCommand() *cobra.Command {
	var maxLine, maxDoc int
	var force bool
	cmd := &cobra.Command{
		Use:   "convert IN OUT.jsonl",
		Short: "Convert a tape (native, HAR, pcap, JSON-RPC log, Agent VCR, mcp-cassette, mcp-recorder, mcp-vcr) to a native tape",
		Long: `Convert a tape to the native JSON Lines format. The input format is
detected from its content. OUT is written atomically: it appears whole or not
at all, also when the conversion is interrupted (Ctrl-C, SIGTERM: exit 130).`,
		Args: exactArgs(2, "convert IN OUT.jsonl"),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, out := args[0], args[1]
			if filepath.Ext(out) != ".jsonl" {
				return usageError("convert: %s: only the native format (.jsonl) can be written", out)
			}
			if _, err := os.Stat(in); err != nil && in != "-" { // before OUT: a missing IN is named as such
				return swappedArgs("convert", in, out, inputMissing("convert", in, err))
			}
			if err := refuseExisting("convert", "OUT", out, force); err != nil {
				return err
			}
			r, err := a.rewriteTape(cmd.Context(), in, out, []tape.Option{tape.WithMaxLine(maxLine), tape.WithMaxDocument(maxDoc)}, func(ctx context.Context, r *tape.Reader) error {
				return tape.WriteFileContext(ctx, out, r)
			})
			if err != nil {
				return err
			}
			defer r.Close()
			for _, w := range r.Warnings() {
				a.log.Warn().Msg(w)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s → %s)\n", out, r.Format(), tape.FormatNative)
			return nil
		},
	}
	addKnob(cmd.Flags(), "convert", "max-line", (*byteSize)(&maxLine))
	addKnob(cmd.Flags(), "convert", "max-document", (*byteSize)(&maxDoc))
	cmd.Flags().BoolVar(&force, "force", false, "overwrite OUT if it exists")
	return cmd
}
