package tape

import (
	"fmt"
	"io"
	"math"
	"time"
)

// mcp-cassette (Python, https://pypi.org/project/mcp-cassette/) writes a
// recording as one JSON document: format_version (an integer, 1 or 2),
// recorded_at, transport ("stdio" or "http"), server_url, session_id
// (the server's Mcp-Session-Id over HTTP), protocol_version, server_info
// and messages, each {seq, t_offset_ms, sender ("client" or "server"),
// kind ("request", "response", "notification" or "raw"), method, msg_id,
// payload (the JSON-RPC message; a string for "raw"), redacted,
// exchange, channel}. One file is one session.

// cassetteMaxVersion is the newest mcp-cassette format_version read.
const cassetteMaxVersion = 2

// decodeCassette imports an mcp-cassette document read from src, message
// by message; lineBase is the number of lines before it. Each message is
// its payload made compact, from its sender, at its t_offset_ms less the
// first one's (times never go back). A "raw" message (a line that was not
// JSON) is left out; messages the recorder redacted are imported as they
// are. Over HTTP the file keeps no status, headers or SSE ids: the
// messages have none, and the warnings say so once.
func decodeCassette(path string, src io.Reader, lineBase int64, store msgStore) (Header, *imported, []string, error) {
	s := newJSONStream(path, src, lineBase)
	s.what = "mcp-cassette file"
	p := &peerImport{path: path, store: store}
	h := peerHeader("mcp-cassette")
	var (
		base    int64
		hasBase bool
		version float64
		hasVer  bool
	)
	member := func(key string, v *vcrValue) error {
		d, sp := v.d, v.sp
		var err error
		switch key {
		case "format_version":
			if version, hasVer, err = d.optNumber(sp, key); err != nil {
				return err
			}
			if version != math.Trunc(version) || version < 1 {
				return d.errf(sp.start, "format_version is %v, want an integer ≥ 1: fix the file", version)
			}
			if version > cassetteMaxVersion {
				e := d.errf(sp.start, "mcp-cassette format_version %v is newer than this replayctl reads (1 to %d): upgrade replayctl", version, cassetteMaxVersion)
				e.Err = ErrNewerVersion
				return e
			}
		case "recorded_at":
			at, err := d.optStr(sp, key)
			if err != nil || at == "" {
				return err
			}
			t, ok := parseISO(at)
			if !ok {
				return d.errf(sp.start, "recorded_at %q is not an ISO 8601 time like 2026-02-08T10:30:00.000Z: fix it", at)
			}
			h.CreatedAt = t.UTC().Format(time.RFC3339Nano)
		case "transport":
			tr, err := d.optStr(sp, key)
			if err != nil {
				return err
			}
			switch tr {
			case "", "stdio":
				h.Transport = "stdio"
			case "http":
				h.Transport = "streamable-http"
			default:
				return d.errf(sp.start, `transport is %q, want "stdio" or "http": fix the file`, tr)
			}
		case "server_url":
			u, err := d.optStr(sp, key)
			if err != nil {
				return err
			}
			if u != "" {
				h.Server = serverOf(h.Server)
				h.Server.URL = MaskURL(u)
			}
		case "session_id":
			id, err := d.optStr(sp, key)
			if err != nil {
				return err
			}
			if id != "" {
				h.Tags["mcp_session_id"] = id
			}
		case "protocol_version":
			h.ProtocolVersion, err = d.optStr(sp, key)
			return err
		case "server_info":
			return d.headerServer(sp, key, &h)
		}
		return nil
	}
	item := func(i int, d *vcrDoc, sp span) error {
		at := fmt.Sprintf("messages[%d]", i)
		o, err := d.object(sp, at)
		if err != nil {
			return err
		}
		if sq := o["seq"]; sq.ok() && d.doc[sq.start] != 'n' {
			if _, err := d.number(sq, at+".seq"); err != nil {
				return err
			}
		}
		tus, hasT, err := d.millis(o["t_offset_ms"], at+".t_offset_ms")
		if err != nil {
			return err
		}
		sender, err := d.optStr(o["sender"], at+".sender")
		if err != nil {
			return err
		}
		var dir Dir
		switch sender {
		case "client":
			dir = C2S
		case "server":
			dir = S2C
		default:
			return d.errf(sp.start, `%s.sender is %q, want "client" or "server": fix the file`, at, sender)
		}
		kind, err := d.optStr(o["kind"], at+".kind")
		if err != nil {
			return err
		}
		pl := o["payload"]
		if kind == "raw" || (pl.ok() && d.doc[pl.start] == '"') {
			p.note(`a "raw" message (a line that was not JSON-RPC) is left out`, i)
			return nil
		}
		if !pl.ok() || d.doc[pl.start] == 'n' {
			return d.errf(sp.start, "%s has no payload: each message needs its JSON-RPC object; fix or remove it", at)
		}
		msg, err := d.message(pl, at+".payload")
		if err != nil {
			return err
		}
		if red, err := d.optBool(o["redacted"], at+".redacted"); err != nil {
			return err
		} else if red {
			p.note(`mcp-cassette redacted the message when it recorded it (values read "REDACTED"): a live server's answer differs there`, i)
		}
		if !hasT {
			p.note("the message has no t_offset_ms: it is placed at the time of the one before it", i)
			tus = -1 // the time before it
		} else if !hasBase {
			base, hasBase = tus, true
		}
		return p.add(Message{Dir: dir, Msg: msg.msg, Line: msg.line}, tus-base)
	}
	found, err := streamObject(s, "messages", member, item)
	if err != nil {
		return Header{}, nil, nil, err
	}
	if !hasVer || !found {
		return Header{}, nil, nil, &Error{Path: path, Line: lineBase + 1, Seq: -1, Err: ErrUnknownFormat,
			Msg: `a JSON document without "format_version" and "messages": this is not an mcp-cassette file replayctl can read`}
	}
	if h.Transport == "" {
		h.Transport = "stdio"
	}
	warnings := p.warnings("messages")
	if h.Transport == "streamable-http" && len(p.refs) > 0 {
		warnings = append(warnings, fmt.Sprintf("tape %s: mcp-cassette keeps no HTTP status, headers or SSE event ids: the imported messages have none", path))
	}
	return h, p.imported("s1"), warnings, nil
}

// serverOf returns srv, or a new Server when it is nil.
func serverOf(srv *Server) *Server {
	if srv == nil {
		return &Server{}
	}
	return srv
}

// FormatCassette is mcp-cassette's JSON recording.
const FormatCassette Format = "mcp-cassette"

func init() { Register(cassetteImporter{}) }

// cassetteImporter imports an mcp-cassette recording: streamed when its
// first member is a numeric "format_version", else once read whole if it
// has "messages" and a "format_version" that is no string.
type cassetteImporter struct{}

func (cassetteImporter) Format() Format { return FormatCassette }
func (cassetteImporter) Stage() Stage   { return StageDocument }

func (cassetteImporter) Detect(p *Probe) bool {
	if p.Whole() != nil {
		return documentKind(p.Whole()) == FormatCassette
	}
	return firstMember(p.First(), p.n.br) == `"format_version":number`
}

func (cassetteImporter) Import(p *Probe) (*Imported, error) {
	return importDecoded(p, decodeCassette)
}
