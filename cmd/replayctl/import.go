package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/tape"
)

func (a *app) importCommand() *cobra.Command {
	var maxLine, maxDoc int
	var force bool
	cmd := &cobra.Command{
		Use:   "import IN OUT.jsonl",
		Short: "Import a HAR file, a packet capture, a JSON-RPC log or another recorder's file as a native tape",
		Long: `Import a recording made by another tool into a native tape. The input
format is detected from its content, not its name:

  HAR 1.2       browser DevTools, Charles, mitmproxy, Playwright: the
                Streamable HTTP exchanges of MCP traffic (POST, GET streams),
                JSON and text/event-stream bodies, base64 bodies; other
                entries are skipped and counted
  JSON-RPC log  one message per line, bare, in a logger's wrapper
                ({"ts":…,"direction":…,"message":{…}}) or after a prefix
                (--> / <--); directions inferred from the messages
  pcap, pcapng  packet captures (tcpdump, Wireshark) of MCP over plain
                HTTP/1.1, Streamable HTTP or legacy HTTP+SSE: TCP streams put
                back together, each message at its packet's time
  Agent VCR     .vcr cassettes
  mcp-cassette  JSON recordings (stdio or HTTP)
  mcp-recorder  JSON cassettes (HTTP or stdio)
  mcp-vcr       YAML transcripts
  native        a replayctl tape (copied)

Credential headers (Authorization, cookies, API keys) are never imported.
OUT is written atomically; stderr says what was imported: messages,
sessions, entries skipped and why, and what the file lacks (times,
HTTP metadata), once each. Bad input exits 2 with what is wrong and where;
so does a file with no MCP message in it (a HAR of web pages only), and
then OUT is not written.`,
		Example: `  replayctl import session.har session.jsonl
  replayctl import mcp.log session.jsonl
  replayctl run session.jsonl --target http://127.0.0.1:8080/mcp --speed fast`,
		Args: exactArgs(2, "import IN OUT.jsonl"),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, out := args[0], args[1]
			if filepath.Ext(out) != ".jsonl" {
				return usageError("import: %s: a tape is written in the native format: name it .jsonl", out)
			}
			if _, err := os.Stat(in); err != nil && in != "-" { // before OUT: a missing IN is named as such
				return swappedArgs("import", in, out, inputMissing("import", in, err))
			}
			if err := refuseExisting("import", "OUT", out, force); err != nil {
				return err
			}
			r, err := a.rewriteTape(cmd.Context(), in, out, []tape.Option{tape.WithMaxLine(maxLine), tape.WithMaxDocument(maxDoc)}, func(ctx context.Context, r *tape.Reader) error {
				if err := mcpTraffic(in, r); err != nil {
					return err
				}
				return tape.WriteFileContext(ctx, out, r)
			})
			if err != nil {
				return err
			}
			defer r.Close()
			msgs, sessions, err := countTape(r)
			if err != nil {
				return err
			}
			w := cmd.ErrOrStderr()
			noun := "sessions"
			if len(sessions) == 1 {
				noun = "session"
			}
			fmt.Fprintf(w, "imported %s (%s) into %s: %d messages, %d %s (%s)\n", in, r.Format(), out, msgs, len(sessions), noun, strings.Join(sessions, ", "))
			for _, s := range r.Warnings() {
				fmt.Fprintf(w, "  %s\n", s)
			}
			return nil
		},
	}
	addKnob(cmd.Flags(), "import", "max-line", (*byteSize)(&maxLine))
	addKnob(cmd.Flags(), "import", "max-document", (*byteSize)(&maxDoc))
	cmd.Flags().BoolVar(&force, "force", false, "overwrite OUT if it exists")
	return cmd
}

// countTape counts the messages of r from the first, and names its
// sessions in order of their first message.
func countTape(r *tape.Reader) (int64, []string, error) {
	if err := r.Rewind(); err != nil {
		return 0, nil, err
	}
	var n int64
	first := map[string]int64{}
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, nil, err
		}
		if _, ok := first[m.Session]; !ok {
			first[m.Session] = n
		}
		n++
	}
	names := make([]string, 0, len(first))
	for s := range first {
		names = append(names, s)
	}
	sort.Slice(names, func(i, j int) bool { return first[names[i]] < first[names[j]] })
	return n, names, nil
}

// mcpTraffic returns nil when r holds an MCP message, and else an error
// (exit 2) that names in and says what was skipped; r is rewound.
func mcpTraffic(in string, r *tape.Reader) error {
	_, err := r.Next()
	if err == io.EOF {
		why := ""
		if w := r.Warnings(); len(w) > 0 {
			why = " (" + strings.Join(w, "; ") + ")"
		}
		return &exitError{code: exitBadInput, err: fmt.Errorf("import: %s: no MCP message in it%s; nothing written: is it the right file?", in, why)}
	}
	if err != nil {
		return err
	}
	return r.Rewind()
}
