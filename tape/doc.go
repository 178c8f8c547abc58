// Package tape is the recorded-session model of replayctl and its file
// formats.
//
// A tape is the ordered list of JSON-RPC messages seen between an MCP client
// and server, each with its direction, session, time offset and transport
// metadata, and the exact bytes seen on the wire.
//
// The native format is JSON Lines: a header line, one line per message and an
// end line (see DESIGN.md, "Native tape format"). Open detects the format
// from the content and returns a Reader that streams native tapes (memory
// does not grow with the tape) and can SeekSeq by seq through a sparse offset
// index. Other formats are imported when opened and read through the same
// Reader: Agent VCR cassettes (.vcr, DecodeVCR) and HAR 1.2 files of
// Streamable HTTP traffic (DecodeHAR), streamed interaction by interaction
// or entry by entry into a spill file in TMPDIR; JSON-RPC logs, one
// message per line (DecodeLog), read twice from the file, line by line;
// the files of other MCP recorders, mcp-cassette and mcp-recorder JSON
// (streamed message by message) and mcp-vcr YAML (DecodeMCPVCR, read
// whole); and packet captures, pcap or pcapng, of MCP over HTTP/1.1
// (DecodePcap: TCP reassembly, HTTP/1.1 and event streams, packet by
// packet). What a file lacks (times, HTTP metadata) is said once, in the
// Reader's warnings.
//
// A Reader is a front over one of two readers: the native reader
// (native.go), which streams and seeks a replayctl tape, and the reader of
// the messages an Importer read (import.go). Each foreign format is an
// Importer, in a file of its own: how it tells its files by their
// content, and how it reads them into messages. Its init Registers it;
// Open asks the importers of each Stage in turn (the first bytes, the
// first line, a JSON document's first member, the document read whole),
// and between the first line's and the document's the native reader
// judges the line, so that a broken tape is told as one (detect.go says
// the order). Adding a format is adding its file and its tests.
// EncodeHAR writes a tape as HAR 1.2 for a browser's network panel, entry
// by entry; what it cannot say in HAR rides in "_replayctl" members that
// DecodeHAR reads back.
//
// A replay opens its tape more than once (to read it, to scan it, for the
// mock to index it), so it reads it through a Source: Load gives File for
// a regular file and, for a pipe or a FIFO, which can be read only once,
// the bytes read into memory (Bytes), up to MaxInMemory.
//
// Create and NewWriter record a native tape line by line: each message is one
// whole line written with one write call, so a crash leaves whole lines and at
// most one torn last line, which Open drops with a warning: they write in
// place, with no temporary file. WriteFile (WriteFileContext, to stop it
// between two messages) converts any readable tape into a native one
// atomically, through a temporary file ".NAME.replayctl-tmp-PID-…" renamed
// into place; one that a killed process left is removed by a later write
// of the same file once that process is gone.
//
// A Redactor takes secrets out of messages before they are written
// (record) or of a whole tape (RedactFile): the values of environment
// variables wherever they appear in a string, the values of members whose
// names match key globs, credential headers. Each becomes a marker that
// says what was there ([redacted:env:NAME], [redacted:key:TYPE],
// [redacted:header]); RestoreEnv puts environment values back for a
// replay, and MatchRedacted tells a validator what a marker stands for.
// It edits the bytes in place: only the replaced values change.
//
// Bad input is reported as *Error, which names the file, the line and the seq
// and says what to do; the CLI maps it to exit status 2. Nothing in this
// package starts goroutines.
package tape
