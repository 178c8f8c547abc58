package main

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/serve"
)

// serveModesHelp is the modes' part of `replayctl serve --help`.
const serveModesHelp = `
Modes (--mode): replay (the default) answers from the tape only. The others
need the real server, the upstream: --upstream URL (a Streamable HTTP server)
or, over stdio, its command after -- (as record takes it).
  record  serve is record's proxy, writing TAPE: over stdio (no --listen) the
          server command after --; over HTTP --listen ADDR --upstream URL.
          An existing TAPE is refused unless --force. Redaction is on, with
          the --redact-* flags. Exit statuses are record's.
  once    TAPE exists: replay; else record. stderr says which.
  new     answer from TAPE; a request it has no answer for is forwarded to
          the upstream (one upstream connection per client session, opened
          with that client's own initialize), the real answer goes back to
          the client, and the exchange is added to TAPE as a new session
          (named n1, n2, …; redacted) so that the next serve answers it.
          While serving, what is added goes line by line to TAPE.journal, a
          journal next to the tape; at a clean stop it is merged into TAPE
          (atomically) and removed. A journal a crash left behind is merged
          when serve next starts on TAPE.`

// modeFlags are serve's flags of the modes.
type modeFlags struct {
	modeName string     // --mode
	mode     serve.Mode // --mode, read by check
	upstream string
	force    bool
	argv     []string // the upstream server command, after --
}

// serveArgs splits serve's arguments: TAPE before --, the upstream
// server's command after it.
func serveArgs(cmd *cobra.Command, args []string) (path string, argv []string, err error) {
	tapeArgs := args
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		tapeArgs, argv = args[:dash], args[dash:]
		if len(argv) == 0 {
			return "", nil, usageError("serve: nothing after --: give the upstream server's command, e.g. -- go tool everything-server")
		}
	}
	if len(tapeArgs) != 1 {
		return "", nil, usageError("want: replayctl serve TAPE [--mode replay|record|once|new] [--upstream URL | -- SERVER_COMMAND ARGS...]")
	}
	return tapeArgs[0], argv, nil
}

// check refuses a mode that does not exist or lacks its upstream.
func (m *modeFlags) check(listen string) error {
	mode, err := serve.ParseMode(m.modeName)
	if err != nil {
		return usageError("--mode %q: want replay, record, once or new", m.modeName)
	}
	m.mode = mode
	if m.upstream != "" {
		u, err := url.Parse(m.upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError("--upstream %q is not an http:// or https:// URL", m.upstream)
		}
	}
	if m.mode == serve.ModeReplay {
		if m.upstream != "" || len(m.argv) > 0 {
			return usageError("serve: an upstream (--upstream or a command after --) is for --mode record, once or new; replay answers from the tape only")
		}
		return nil
	}
	switch {
	case m.upstream != "" && len(m.argv) > 0:
		return usageError("serve --mode %s: give one upstream: --upstream URL or a server command after --, not both", m.mode)
	case m.upstream == "" && len(m.argv) == 0:
		return usageError("serve --mode %s needs the real server: --upstream URL (Streamable HTTP) or its command after --, e.g. replayctl serve t.jsonl --mode %s -- go tool everything-server", m.mode, m.mode)
	}
	if m.mode == serve.ModeNew {
		return nil // new forwards to either upstream over either listener
	}
	// record's proxies relay like to like.
	switch {
	case listen == "" && m.upstream != "":
		return usageError("serve --mode %s over stdio records a server command after --; --upstream %s needs --listen ADDR", m.mode, m.upstream)
	case listen != "" && len(m.argv) > 0:
		return usageError("serve --mode %s --listen records an HTTP server: give --upstream URL, not a server command", m.mode)
	}
	return nil
}

// replayOnlyFlags are serve's flags for serving from a tape (how answers
// are matched, timed, spoilt, reported; idle sessions), which
// --mode record, record's pass-through proxy, does not take.
var replayOnlyFlags = []string{"strategy", "timing", "chaos", "seed", "strict", "report", "volatile", "repeat", "idle-timeout",
	"ui", "ui-remote", "ui-journal", "ui-bodies", "ui-hold", "ui-save"}

// replayOnly refuses, when serve records (--mode record, or once with
// no tape at path), a flag that only a replay uses, rather than ignoring
// it.
func replayOnly(cmd *cobra.Command, mode serve.Mode, path string) error {
	switch mode {
	case serve.ModeRecord:
	case serve.ModeOnce:
		if _, err := os.Stat(path); err == nil {
			return nil // once replays: it takes them
		}
	default:
		return nil
	}
	for _, name := range replayOnlyFlags {
		if !cmd.Flags().Changed(name) {
			continue
		}
		if mode == serve.ModeOnce {
			return usageError("serve --mode once: %s does not exist, so this run records it, passing everything through to the upstream, and --%s is for serving from the tape: leave it out of this run (once replays the tape from the next run on, and takes it then)", path, name)
		}
		return usageError("serve --mode record: --%s is for serving from the tape (modes replay, once, new); record passes everything through to the upstream: leave it out", name)
	}
	return nil
}

// serveRecorder is serve --mode record (or once without the tape) for
// serve.Server: record's proxy writing the tape, with serve's flags. An
// HTTP upstream is reached first: one that cannot be is exit 3, with no
// tape written.
type serveRecorder struct {
	a    *app
	f    serveFlags
	rf   recordFlags
	tags map[string]string
}

// recorder returns the recorder of serve's flags f.
func (a *app) recorder(path string, f serveFlags) *serveRecorder {
	return &serveRecorder{a: a, f: f, rf: recordFlags{
		out: path, force: f.force, session: "s1", maxMessage: byteSize(f.maxMessage),
		stopTimeout: f.stopTimeout, drain: f.drain, redaction: f.redaction,
	}}
}

// Prepare refuses an existing tape without --force, checks record's flags
// and locks the tape.
func (r *serveRecorder) Prepare(path string) (func(), error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !r.f.force {
		return nil, usageError("serve --mode record: %s exists; pass --force to overwrite it, or --mode once to replay it", path)
	}
	tags, err := r.rf.check()
	r.tags = tags
	return r.rf.done, err
}

// Record records over HTTP with --listen, else over stdio.
func (r *serveRecorder) Record(ctx context.Context, path string) error {
	f := r.f
	if f.listen != "" {
		if err := record.Reachable(ctx, f.upstream); err != nil {
			return &exitError{code: exitTarget, err: fmt.Errorf("serve --mode %s: the upstream %s cannot be reached: %w; nothing was recorded (start it, or check --upstream)", f.mode, f.upstream, err)}
		}
		return r.a.recordHTTP(ctx, &r.rf, r.tags, recordHTTPFlags{listen: f.listen, upstream: f.upstream, checked: true, hosts: f.hosts, origins: f.origins})
	}
	return r.a.recordStdio(ctx, &r.rf, r.tags, f.argv)
}
