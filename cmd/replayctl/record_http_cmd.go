package main

import (
	"github.com/spf13/cobra"
)

// recordCommand is `replayctl record` with its HTTP mode only. The stdio
// mode (record.go, `-- SERVER_CMD`) adds its own; until then, a server
// command is refused with a clear error. When both are in, this file goes
// and record.go's command calls recordHTTPFlags.add, check and recordHTTP.
func (a *app) recordCommand() *cobra.Command {
	var out string
	var hf recordHTTPFlags
	cmd := &cobra.Command{
		Use:   "record -o TAPE --listen ADDR --upstream URL",
		Short: "Record real MCP clients and a server into a tape (HTTP recording proxy)",
		Long: `Record the traffic of real MCP clients with a real server into a native tape.

HTTP mode (--listen ADDR --upstream URL): a reverse proxy listens on ADDR and
relays every request to the MCP server at URL byte for byte, Streamable HTTP
(every revision: session-based up to 2025-11-25, stateless 2026-07-28) and the
legacy 2024-11-05 HTTP+SSE transport. Point clients at the URL it prints on
stderr (ADDR with the upstream's path). Any number of clients at once: each
client session is a session of its own on the tape. Every message is appended
as it passes (a killed recorder leaves every whole line); Ctrl-C or SIGTERM
ends the streams in flight, writes the end line and exits 0.

Authorization, Cookie, Set-Cookie, X-Api-Key and the other credential headers
are never written to the tape.`,
		Example: `  replayctl record -o session.jsonl --listen 127.0.0.1:8080 --upstream http://127.0.0.1:3000/mcp`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !hf.given() {
				return usageError("record: give --listen ADDR --upstream URL (HTTP recording proxy)")
			}
			if err := hf.check(out, args); err != nil {
				return err
			}
			return a.recordHTTP(cmd.Context(), out, hf, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the tape to write (native .jsonl)")
	hf.add(cmd)
	return cmd
}
