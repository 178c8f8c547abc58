package main

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/spf13/cobra"
)

// The record-or-replay modes of replayctl serve, as go-vcr and
// mcp-cassette users know them.
const (
	modeReplay = "replay" // answer from the tape only (the default)
	modeRecord = "record" // pass through to the upstream and write the tape
	modeOnce   = "once"   // record if the tape does not exist, else replay
	modeNew    = "new"    // answer from the tape; forward misses and add them
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
	mode     string
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
	switch m.mode {
	case modeReplay, modeRecord, modeOnce, modeNew:
	default:
		return usageError("--mode %q: want replay, record, once or new", m.mode)
	}
	if m.upstream != "" {
		u, err := url.Parse(m.upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError("--upstream %q is not an http:// or https:// URL", m.upstream)
		}
	}
	if m.mode == modeReplay {
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
	if m.mode == modeNew {
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
// are matched, timed, spoilt, reported; serve's own HTTP listener), which
// --mode record, record's pass-through proxy, does not take.
var replayOnlyFlags = []string{"strategy", "timing", "chaos", "seed", "strict", "report", "volatile", "repeat", "idle-timeout", "allow-origin"}

// replayOnly refuses, with --mode record, a flag that only a replay uses,
// rather than ignoring it.
func replayOnly(cmd *cobra.Command) error {
	for _, name := range replayOnlyFlags {
		if cmd.Flags().Changed(name) {
			return usageError("serve --mode record: --%s is for serving from the tape (modes replay, once, new); record passes everything through to the upstream: leave it out", name)
		}
	}
	return nil
}

// recordMode is serve --mode record (or once without the tape): record's
// proxy writing path, with serve's flags.
func (a *app) recordMode(ctx context.Context, path string, f serveFlags) error {
	rf := recordFlags{
		out: path, force: f.force, session: "s1", maxMessage: byteSize(f.maxMessage),
		stopTimeout: f.stopTimeout, redaction: f.redaction,
	}
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !f.force {
		return usageError("serve --mode record: %s exists; pass --force to overwrite it, or --mode once to replay it", path)
	}
	tags, err := rf.check()
	if err != nil {
		return err
	}
	defer rf.done()
	if f.listen != "" {
		return a.recordHTTP(ctx, &rf, tags, recordHTTPFlags{listen: f.listen, upstream: f.upstream})
	}
	return a.recordStdio(ctx, &rf, tags, f.argv)
}

// onceMode is serve --mode once: replay when path exists, else record.
func (a *app) onceMode(ctx context.Context, path string, f serveFlags) error {
	if _, err := os.Stat(path); err == nil {
		fmt.Fprintf(a.errOut, "once: %s exists: replaying it (the upstream is not used)\n", path)
		return a.replay(ctx, path, f)
	}
	fmt.Fprintf(a.errOut, "once: %s does not exist: recording it from the upstream\n", path)
	return a.recordMode(ctx, path, f)
}
