package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/internal/termsafe"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

func (a *app) inspectCommand() *cobra.Command {
	var maxLine, maxDoc int
	var output string
	cmd := &cobra.Command{
		Use:   "inspect TAPE",
		Short: "Print a tape's timeline, one line per message",
		Long: `Print a tape's timeline, one line per message: seq, time since the start,
session, direction, kind, method, id, size in bytes, and a note: the round of
a multi-round request (MCP 2026-07-28) and what its answer asks for, the polls
of a task and its status, the HTTP status of a refused request (4xx, 5xx: on
the client's message, and on the server's when it has one). The first line names the tape's protocol revision
and its era (session-based or stateless).

-o json prints JSON Lines: a header object first ("type":"header": path,
format, version, protocol_version, era, transport), one object per message
("type":"message": seq, t_us, session, dir, kind, method, id, bytes, note),
then "type":"end" with the count and the tape's warnings.`,
		Args: exactArgs(1, "inspect TAPE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError("-o %q: want text or json", output)
			}
			ctx := cmd.Context()
			r, err := a.openTapeArg(ctx, args[0], tape.WithMaxLine(maxLine), tape.WithMaxDocument(maxDoc))
			if err != nil {
				if ctx.Err() != nil {
					return interrupted("")
				}
				return err
			}
			defer r.Close()
			if err := inspect(ctx, cmd.OutOrStdout(), r, output == "json"); err != nil {
				if ctx.Err() != nil {
					return interrupted("the timeline printed is not the whole tape's")
				}
				return err
			}
			return nil
		},
	}
	addKnob(cmd.Flags(), "inspect", "max-line", (*byteSize)(&maxLine))
	addKnob(cmd.Flags(), "inspect", "max-document", (*byteSize)(&maxDoc))
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text (a table) or json (JSON Lines: the header, each message, the end)")
	registerValues(cmd, "output", outputs...)
	return cmd
}

// inspectHeader is the first line of inspect -o json: the tape.
type inspectHeader struct {
	Type            string `json:"type"` // "header"
	Path            string `json:"path"`
	Format          string `json:"format"`
	Version         int    `json:"version"`
	ProtocolVersion string `json:"protocol_version"`
	Era             string `json:"era,omitempty"`
	Transport       string `json:"transport"`
}

// inspectRow is one message of the timeline: a line of the table, or of
// inspect -o json.
type inspectRow struct {
	Type    string          `json:"type"` // "message"
	Seq     int64           `json:"seq"`
	TUS     int64           `json:"t_us"`
	Session string          `json:"session"`
	Dir     string          `json:"dir"`
	Kind    string          `json:"kind"`
	Method  string          `json:"method,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"` // as recorded: 7, "a"
	Bytes   int             `json:"bytes"`
	Note    string          `json:"note,omitempty"`
}

// inspectEnd is the last line of inspect -o json.
type inspectEnd struct {
	Type     string   `json:"type"` // "end"
	Messages int      `json:"messages"`
	Warnings []string `json:"warnings,omitempty"`
}

// timelineWriter writes the timeline as a table or as JSON Lines.
type timelineWriter interface {
	header(inspectHeader)
	row(inspectRow)
	end(inspectEnd)
}

type tableWriter struct{ w io.Writer }

func (t tableWriter) header(h inspectHeader) {
	protocol := orDash(h.ProtocolVersion)
	if h.Era != "" {
		protocol += " (" + h.Era + ")"
	}
	esc := termsafe.String
	fmt.Fprintf(t.w, "# %s (format %s v%d) protocol %s transport %s\n", esc(h.Path), esc(h.Format), h.Version, esc(protocol), esc(orDash(h.Transport)))
	fmt.Fprintf(t.w, "%6s  %12s  %-8s  %-3s  %-12s  %-32s  %-8s  %8s  %s\n", "SEQ", "TIME", "SESSION", "DIR", "KIND", "METHOD", "ID", "BYTES", "NOTE")
}

func (t tableWriter) row(r inspectRow) {
	arrow := "→"
	if r.Dir == string(tape.S2C) {
		arrow = "←"
	}
	esc := termsafe.String // the tape's text: a method may hold terminal escapes
	fmt.Fprintf(t.w, "%6d  %12s  %-8s  %-3s  %-12s  %-32s  %-8s  %8d  %s\n", r.Seq, fmtUS(r.TUS), esc(r.Session), arrow, r.Kind, esc(orDash(r.Method)), esc(orDash(string(r.ID))), r.Bytes, esc(r.Note))
}

func (t tableWriter) end(e inspectEnd) {
	fmt.Fprintf(t.w, "# %s\n", english.Count(int64(e.Messages), "message"))
	for _, warn := range e.Warnings {
		fmt.Fprintf(t.w, "# warning: %s\n", termsafe.String(warn))
	}
}

// jsonLinesWriter writes one JSON object a line: the header, each
// message, the end.
type jsonLinesWriter struct{ enc *json.Encoder }

func (j jsonLinesWriter) header(h inspectHeader) { h.Type = "header"; j.enc.Encode(h) }
func (j jsonLinesWriter) row(r inspectRow)       { r.Type = "message"; j.enc.Encode(r) }
func (j jsonLinesWriter) end(e inspectEnd)       { e.Type = "end"; j.enc.Encode(e) }

// inspect prints the timeline of r to out, as a table or (asJSON) as
// JSON Lines. It returns when the tape is printed, or, between two
// messages, when ctx is done (then with ctx's error, what was printed
// flushed).
func inspect(ctx context.Context, out io.Writer, r *tape.Reader, asJSON bool) error {
	w := bufio.NewWriter(out)
	var tw timelineWriter = tableWriter{w}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		tw = jsonLinesWriter{enc}
	}
	h := r.Header()
	hd := inspectHeader{Path: r.Path(), Format: string(r.Format()), Version: h.Version, ProtocolVersion: h.ProtocolVersion, Transport: h.Transport}
	if era := mcp.EraOf(h.ProtocolVersion); era != mcp.EraUnknown {
		hd.Era = era.String()
	}
	tw.header(hd)
	notes := newNoter()
	n := 0
	done := ctx.Done()
	for {
		select {
		case <-done:
			w.Flush()
			return ctx.Err()
		default:
		}
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			w.Flush()
			return err
		}
		n++
		row := inspectRow{Seq: m.Seq, TUS: m.TUS, Session: m.Session, Dir: string(m.Dir), Kind: "invalid", Bytes: len(m.Msg)}
		if rpc, err := jsonrpc.Parse(m.Msg); err == nil {
			row.Kind, row.Method, row.ID = rpc.Kind.String(), rpc.Method, json.RawMessage(rpc.ID)
			row.Note = notes.note(m, rpc)
		}
		if m.HTTP != nil && m.HTTP.Status >= 400 { // refused: say so on either side
			row.Note = strings.TrimSpace(fmt.Sprintf("HTTP %d %s", m.HTTP.Status, row.Note))
		}
		tw.row(row)
	}
	tw.end(inspectEnd{Messages: n, Warnings: r.Warnings()})
	return w.Flush()
}

// noter says what a message is in a multi-round request or a task: the
// requests of each session are followed to name the answers.
type noter struct {
	asked  map[string]string  // session + id → method of the request
	rounds map[mcp.Thread]int // an MRTR chain → rounds seen
	polls  map[mcp.Thread]int // a task → polls seen
}

func newNoter() *noter {
	return &noter{asked: map[string]string{}, rounds: map[mcp.Thread]int{}, polls: map[mcp.Thread]int{}}
}

func (n *noter) note(m tape.Message, rpc jsonrpc.Message) string {
	key := m.Session + "\x00" + jsonrpc.IDKey(rpc.ID)
	switch rpc.Kind {
	case jsonrpc.KindRequest:
		n.asked[key] = rpc.Method
		params := rpc.Params()
		switch {
		case mcp.HasMRTR(rpc.Method):
			round := mcp.ChainThread(m.Session, rpc.Method, mcp.RequestName(rpc.Method, params))
			if !mcp.IsRetryOf(params) {
				n.rounds[round] = 1
				return ""
			}
			n.rounds[round]++
			return fmt.Sprintf("round %d", n.rounds[round])
		case mcp.OnTask(rpc.Method):
			task, _ := mcp.ParamTaskID(params)
			if rpc.Method != mcp.MethodTasksGet {
				return "task " + task
			}
			poll := mcp.TaskThread(m.Session, task)
			n.polls[poll]++
			return fmt.Sprintf("poll %d of task %s", n.polls[poll], task)
		}
	case jsonrpc.KindResponse:
		res := rpc.Result()
		switch asked := n.asked[key]; {
		case mcp.ResultType(res) == mcp.ResultInputRequired:
			return "input required: " + strings.Join(mcp.InputRequestKeys(res), ", ")
		case asked == mcp.MethodTasksGet || asked == mcp.MethodTasksCancel:
			return mcp.TaskStatus(res)
		default:
			if id, ok := mcp.TaskID(res); ok {
				return "task " + id + " " + mcp.TaskStatus(res)
			}
		}
	}
	return ""
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
