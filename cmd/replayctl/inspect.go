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

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
)

func (a *app) inspectCommand() *cobra.Command {
	var maxLine int
	cmd := &cobra.Command{
		Use:   "inspect TAPE",
		Short: "Print a tape's timeline, one line per message",
		Long: `Print a tape's timeline, one line per message: seq, time since the start,
session, direction, kind, method, id, size in bytes, and a note: the round of
a multi-round request (MCP 2026-07-28) and what its answer asks for, the polls
of a task and its status. The first line names the tape's protocol revision
and its era (session-based or stateless).`,
		Args: exactArgs(1, "inspect TAPE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			r, err := openTape(ctx, args[0], tape.WithMaxLine(maxLine))
			if err != nil {
				if ctx.Err() != nil {
					return interrupted("")
				}
				return err
			}
			defer r.Close()
			if err := inspect(ctx, cmd.OutOrStdout(), r); err != nil {
				if ctx.Err() != nil {
					return interrupted("the timeline printed is not the whole tape's")
				}
				return err
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&maxLine, "max-line", 8<<20, "longest tape line accepted, in bytes")
	return cmd
}

// inspect prints the timeline of r to out. It returns when the tape is
// printed, or, between two messages, when ctx is done (then with ctx's
// error, what was printed flushed).
func inspect(ctx context.Context, out io.Writer, r *tape.Reader) error {
	w := bufio.NewWriter(out)
	h := r.Header()
	protocol := orDash(h.ProtocolVersion)
	if era := mcp.EraOf(h.ProtocolVersion); era != mcp.EraUnknown {
		protocol += " (" + era.String() + ")"
	}
	fmt.Fprintf(w, "# %s (format %s v%d) protocol %s transport %s\n", r.Path(), r.Format(), h.Version, protocol, orDash(h.Transport))
	fmt.Fprintf(w, "%6s  %12s  %-8s  %-3s  %-12s  %-32s  %-8s  %8s  %s\n", "SEQ", "TIME", "SESSION", "DIR", "KIND", "METHOD", "ID", "BYTES", "NOTE")
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
		kind, method, id, note := "invalid", "", "", ""
		if rpc, err := jsonrpc.Parse(m.Msg); err == nil {
			kind, method, id = rpc.Kind.String(), rpc.Method, string(rpc.ID)
			note = notes.note(m, rpc)
		}
		arrow := "→"
		if m.Dir == tape.S2C {
			arrow = "←"
		}
		fmt.Fprintf(w, "%6d  %12s  %-8s  %-3s  %-12s  %-32s  %-8s  %8d  %s\n", m.Seq, fmtUS(m.TUS), m.Session, arrow, kind, orDash(method), orDash(id), len(m.Msg), note)
	}
	fmt.Fprintf(w, "# %d messages\n", n)
	for _, warn := range r.Warnings() {
		fmt.Fprintf(w, "# warning: %s\n", warn)
	}
	return w.Flush()
}

// noter says what a message is in a multi-round request or a task: the
// requests of each session are followed to name the answers.
type noter struct {
	asked  map[string]string // session + id → method of the request
	rounds map[string]int    // session + method + name → rounds seen
	polls  map[string]int    // session + task id → polls seen
}

func newNoter() *noter {
	return &noter{asked: map[string]string{}, rounds: map[string]int{}, polls: map[string]int{}}
}

func (n *noter) note(m tape.Message, rpc jsonrpc.Message) string {
	key := m.Session + "\x00" + jsonrpc.IDKey(rpc.ID)
	switch rpc.Kind {
	case jsonrpc.KindRequest:
		n.asked[key] = rpc.Method
		params := rpc.Params()
		switch {
		case mcp.HasMRTR(rpc.Method):
			name, _ := jsonString(params, "name", "uri")
			round := m.Session + "\x00" + rpc.Method + "\x00" + name
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
			n.polls[m.Session+"\x00"+task]++
			return fmt.Sprintf("poll %d of task %s", n.polls[m.Session+"\x00"+task], task)
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

// jsonString is the first of the string members keys of the object obj.
func jsonString(obj []byte, keys ...string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return "", false
	}
	for _, k := range keys {
		var s string
		if json.Unmarshal(m[k], &s) == nil {
			return s, true
		}
	}
	return "", false
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
