package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/tape"
)

func (a *app) exportCommand() *cobra.Command {
	var maxLine int
	var har bool
	cmd := &cobra.Command{
		Use:   "export --har TAPE OUT.har",
		Short: "Export a tape as a HAR 1.2 file, to look at in a browser's network panel",
		Long: `Export a tape (any format replayctl reads) as HAR 1.2: one entry per HTTP
exchange rebuilt from the tape. Each client message is a POST with the
message as its body, answered by the server messages that belong to it (a
JSON body, or a text/event-stream body with the recorded SSE ids); server
messages outside any request go to a GET stream entry per session. A stdio
tape has no HTTP: its messages are shown as POSTs to ` + tape.StdioURL + `.
The tape's header, session names, seqs and exact times go into
"_replayctl" members, so that 'replayctl import' gets the same tape back.
OUT is written atomically.`,
		Example: `  replayctl export --har session.jsonl session.har
  # then, in Chrome or Firefox DevTools: Network → Import HAR file`,
		Args: exactArgs(2, "export --har TAPE OUT.har"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !har {
				return usageError("export: say which format: --har (the one export writes)")
			}
			in, out := args[0], args[1]
			ctx := cmd.Context()
			r, err := a.openTapeArg(ctx, in, tape.WithMaxLine(maxLine))
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(out + " was not written")
				}
				return err
			}
			defer r.Close()
			f, err := atomicfile.Create(out)
			if err != nil {
				return usageError("export: %v", err)
			}
			bw := bufio.NewWriterSize(f, 256<<10)
			err = tape.EncodeHAR(bw, r, readVersion().Version)
			if err == nil {
				err = bw.Flush()
			}
			if err == nil {
				err = f.Commit()
			}
			if err != nil {
				f.Abort()
				if ctx.Err() != nil {
					return interrupted(out + " was not written")
				}
				return err
			}
			for _, w := range r.Warnings() {
				a.log.Warn().Msg(w)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (HAR 1.2)\n", out)
			return nil
		},
	}
	cmd.Flags().BoolVar(&har, "har", false, "write HAR 1.2")
	cmd.Flags().IntVar(&maxLine, "max-line", 8<<20, "longest tape line accepted, in bytes")
	return cmd
}
