package main

import (
	"bufio"
	"fmt"
	"io"
	neturl "net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/tape"
)

// exportFormat is one format export writes.
type exportFormat struct {
	flag, what string
	encode     func(w io.Writer, r *tape.Reader, opts []tape.ExportOption) error
}

func exportFormats(creator string) []exportFormat {
	return []exportFormat{
		{"har", "HAR 1.2", func(w io.Writer, r *tape.Reader, _ []tape.ExportOption) error { return tape.EncodeHAR(w, r, creator) }},
		{"k6", "k6 script", func(w io.Writer, r *tape.Reader, o []tape.ExportOption) error { return tape.EncodeK6(w, r, o...) }},
		{"postman", "Postman Collection v2.1", func(w io.Writer, r *tape.Reader, o []tape.ExportOption) error { return tape.EncodePostman(w, r, o...) }},
		{"insomnia", "Insomnia v4 export", func(w io.Writer, r *tape.Reader, o []tape.ExportOption) error { return tape.EncodeInsomnia(w, r, o...) }},
		{"playwright", "Playwright Test spec", func(w io.Writer, r *tape.Reader, o []tape.ExportOption) error {
			return tape.EncodePlaywright(w, r, o...)
		}},
		{"openapi", "OpenAPI 3.1", func(w io.Writer, r *tape.Reader, o []tape.ExportOption) error { return tape.EncodeOpenAPI(w, r, o...) }},
	}
}

func (a *app) exportCommand() *cobra.Command {
	var maxLine, maxDoc int
	var url string
	var force bool
	formats := exportFormats(readVersion().Version)
	chosen := make([]bool, len(formats))
	var names []string
	for _, f := range formats {
		names = append(names, "--"+f.flag)
	}
	cmd := &cobra.Command{
		Use:   "export --har|--k6|--postman|--insomnia|--playwright|--openapi TAPE OUT",
		Short: "Export a tape as HAR, a k6 script, a Postman or Insomnia collection, a Playwright test or an OpenAPI description",
		Long: `Export a tape (any format replayctl reads) for another tool. OUT is written
atomically and not over a file that exists unless --force ("-" writes to
stdout); credentials are left out as the redaction policy says (headers
and members named like secrets, passwords in URLs).

--har writes HAR 1.2, to look at in a browser's network panel: one entry
per HTTP exchange rebuilt from the tape. Each client message is a POST
with the message as its body, answered by the server messages that belong
to it (a JSON body, or a text/event-stream body with the recorded SSE ids);
server messages outside any request go to a GET stream entry per session.
A stdio tape has no HTTP: its messages are shown as POSTs to
` + tape.StdioURL + `. The tape's header, session names, seqs and exact
times go into "_replayctl" members, so that 'replayctl import' gets the
same tape back.

--k6 writes a k6 script that replays each session as plain HTTP POSTs to a
Streamable HTTP endpoint at the recorded pacing (one scenario per session,
started at its recorded offset), sends the Mcp-Session-Id the server gives
on initialize with every later request, and checks each request's answer:
a result where a result was recorded, an error where an error was. It
sends to $MCP_URL, else --url, else the URL the tape was recorded from
(` + tape.DefaultExportURL + ` for a stdio tape); $MCP_HEADERS (a JSON
object) adds headers, such as a token. The server's GET streams are not
replayed.

--postman writes a Postman Collection v2.1: a folder per session, one
request per client message in order, POSTed to the collection variable
{{mcpUrl}} (--url, else as for --k6); initialize's test script keeps the
session id in a collection variable that the next requests send; each
request waits the recorded pause and checks its answer as --k6 does.
Postman and newman run the sessions one after another.

--insomnia writes an Insomnia v4 export (Insomnia: Import → From File): a
workspace with a base environment holding mcpUrl (--url, else as for
--k6), a folder per session, one request per client message in order,
POSTed to {{ _.mcpUrl }}; after initialize each request sends the session
id its session's initialize was given (a response tag). Each request's
description shows the recorded answer; Insomnia does not check it.

--playwright writes a Playwright Test spec (name it NAME.spec.mjs): a test
per session that connects the MCP TypeScript SDK's client as the recorded
one (its clientInfo and capabilities) to $MCP_URL, else the URL as for
--k6, sends each recorded request and notification (initialize as
recorded, not the SDK's own) at its recorded time
and expects each answer as recorded (a result, or an error). The
project that runs it installs @playwright/test and
@modelcontextprotocol/sdk.

--openapi writes an OpenAPI 3.1 description of the recorded Streamable
HTTP endpoint: a POST of a JSON-RPC message, with the session and
protocol headers and the answers it may get; the tools of the recorded
tools/list answers are components (their inputSchema and outputSchema,
and the tools/call request of each).`,
		Example: `  replayctl export --har session.jsonl session.har
  # then, in Chrome or Firefox DevTools: Network → Import HAR file
  replayctl export --k6 session.jsonl session.js
  k6 run -e MCP_URL=http://127.0.0.1:3001/mcp session.js
  replayctl export --postman session.jsonl session.postman.json
  newman run session.postman.json --env-var mcpUrl=http://127.0.0.1:3001/mcp
  replayctl export --insomnia session.jsonl session.insomnia.json
  replayctl export --playwright session.jsonl replay.spec.mjs
  MCP_URL=http://127.0.0.1:3001/mcp npx playwright test replay.spec.mjs
  replayctl export --openapi --url http://127.0.0.1:3001/mcp session.jsonl openapi.json`,
		Args: exactArgs(2, "export --har|--k6|--postman|--insomnia|--playwright|--openapi TAPE OUT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var f *exportFormat
			for i := range formats {
				if !chosen[i] {
					continue
				}
				if f != nil {
					return usageError("export: --%s and --%s: say one format (export writes one file)", f.flag, formats[i].flag)
				}
				f = &formats[i]
			}
			if f == nil {
				return usageError("export: say which format: %s", strings.Join(names, ", "))
			}
			if url != "" && f.flag == "har" {
				return usageError("export: --url is for the formats that send to or describe an endpoint, not --har (a HAR keeps the recorded URL)")
			}
			if url != "" {
				if u, err := neturl.Parse(url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return usageError("export: --url %q is not an http:// or https:// URL: give the MCP endpoint, e.g. %s", url, tape.DefaultExportURL)
				}
			}
			in, out := args[0], args[1]
			ctx := cmd.Context()
			r, err := a.openTapeArg(ctx, in, tape.WithMaxLine(maxLine), tape.WithMaxDocument(maxDoc)) // before OUT: a bad TAPE is named as such
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(out + " was not written")
				}
				return swappedArgs("export", in, out, err)
			}
			defer r.Close()
			if out != "-" {
				if err := refuseExisting("export", "OUT", out, force); err != nil {
					return err
				}
			}
			opts := []tape.ExportOption{tape.ExportCreator("replayctl " + readVersion().Version)}
			if url != "" {
				opts = append(opts, tape.ExportURL(url))
			}
			if out == "-" { // stdout, as --out json=- is
				bw := bufio.NewWriterSize(cmd.OutOrStdout(), 256<<10)
				if err := f.encode(bw, r, opts); err != nil {
					return err
				}
				for _, w := range r.Warnings() {
					a.log.Warn().Msg(w)
				}
				return bw.Flush()
			}
			w, err := atomicfile.Create(out)
			if err != nil {
				return usageError("export: %v", err)
			}
			bw := bufio.NewWriterSize(w, 256<<10)
			err = f.encode(bw, r, opts)
			if err == nil {
				err = bw.Flush()
			}
			if err == nil {
				err = w.Commit()
			}
			if err != nil {
				w.Abort()
				if ctx.Err() != nil {
					return interrupted(out + " was not written")
				}
				return err
			}
			for _, w := range r.Warnings() {
				a.log.Warn().Msg(w)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s)\n", out, f.what)
			return nil
		},
	}
	for i, f := range formats {
		cmd.Flags().BoolVar(&chosen[i], f.flag, false, "write "+f.what)
	}
	cmd.Flags().StringVar(&url, "url", "", "the MCP endpoint the export sends to or describes (default: the recorded URL, or "+tape.DefaultExportURL+" for a stdio tape)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite OUT if it exists")
	addKnob(cmd.Flags(), "export", "max-line", (*byteSize)(&maxLine))
	addKnob(cmd.Flags(), "export", "max-document", (*byteSize)(&maxDoc))
	return cmd
}
