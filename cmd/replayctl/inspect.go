package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

func (a *app) inspectCommand() *cobra.Command {
	var maxLine int
	cmd := &cobra.Command{
		Use:   "inspect TAPE",
		Short: "Print a tape's timeline, one line per message",
		Long: `Print a tape's timeline, one line per message: seq, time since the start,
session, direction, kind, method, id and size in bytes.`,
		Args: exactArgs(1, "inspect TAPE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := tape.Open(args[0], tape.WithMaxLine(maxLine))
			if err != nil {
				return err
			}
			defer r.Close()
			return inspect(cmd.OutOrStdout(), r)
		},
	}
	cmd.Flags().IntVar(&maxLine, "max-line", 8<<20, "longest tape line accepted, in bytes")
	return cmd
}

func inspect(out io.Writer, r *tape.Reader) error {
	w := bufio.NewWriter(out)
	h := r.Header()
	fmt.Fprintf(w, "# %s (format %s v%d) protocol %s transport %s\n", r.Path(), r.Format(), h.Version, orDash(h.ProtocolVersion), orDash(h.Transport))
	fmt.Fprintf(w, "%6s  %12s  %-8s  %-3s  %-12s  %-32s  %-8s  %s\n", "SEQ", "TIME", "SESSION", "DIR", "KIND", "METHOD", "ID", "BYTES")
	n := 0
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			w.Flush()
			return err
		}
		n++
		kind, method, id := "invalid", "", ""
		if rpc, err := jsonrpc.Parse(m.Msg); err == nil {
			kind, method, id = rpc.Kind.String(), rpc.Method, string(rpc.ID)
		}
		arrow := "→"
		if m.Dir == tape.S2C {
			arrow = "←"
		}
		fmt.Fprintf(w, "%6d  %12s  %-8s  %-3s  %-12s  %-32s  %-8s  %d\n", m.Seq, fmtUS(m.TUS), m.Session, arrow, kind, orDash(method), orDash(id), len(m.Msg))
	}
	fmt.Fprintf(w, "# %d messages\n", n)
	for _, warn := range r.Warnings() {
		fmt.Fprintf(w, "# warning: %s\n", warn)
	}
	return w.Flush()
}

// fmtUS shows microseconds as seconds with millisecond precision.
func fmtUS(us int64) string { return fmt.Sprintf("%.3fs", float64(us)/1e6) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func exactArgs(n int, use string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("want: replayctl %s", use)
		}
		return nil
	}
}
