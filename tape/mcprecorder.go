package tape

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
)

// mcp-recorder (Python, https://pypi.org/project/mcp-recorder/) writes a
// recording as one JSON document: version ("1.0"), metadata
// {recorded_at, server_url, transport_type ("http" or "stdio"; older
// files, HTTP only, have none), protocol_version, server_info} and
// interactions, each {type ("jsonrpc_request", "notification" or
// "lifecycle"), request, response, response_is_sse, response_status,
// latency_ms, http_method, http_path}. It records what its client sent:
// requests and notifications, each request with the answer it got. One
// file is one session.
//
// What the format lacks, and what the importer does about it, said once
// each in the warnings: there is no time between interactions (each is
// placed when the one before it ended); over HTTP, the answer of a
// request whose response was an event stream is the stream's first
// JSON-RPC message (mcp-recorder's parse_sse_response), so where that is
// a notification (progress before the result) the request's own answer
// is missing; the server's other messages (notifications on a stdio
// stream or a GET stream) are not recorded.

// decodeRecorder imports an mcp-recorder document read from src,
// interaction by interaction; lineBase is the number of lines before it.
// A request is the client's, at the time the interactions before it
// took; its response the server's, latency_ms later, with the status
// and, over HTTP, the Content-Type the answer had (text/event-stream
// when response_is_sse). A notification is the client's, with its
// status (202). Lifecycle interactions (a DELETE that ends the session,
// the GET stream) carry no message and are counted in the warnings.
func decodeRecorder(path string, src io.Reader, lineBase int64, store msgStore) (Header, *imported, []string, error) {
	s := newJSONStream(path, src, lineBase)
	s.what = "mcp-recorder file"
	p := &peerImport{path: path, store: store}
	h := peerHeader("mcp-recorder")
	var (
		hasVer    bool
		transport string // from metadata.transport_type
		serverURL string
		now       int64 // when the next interaction starts, µs
		metaSeen  bool
	)
	// isHTTP says whether the interactions were over HTTP, as the
	// metadata (written before them) says: their status is then kept.
	isHTTP := func() bool {
		return metaSeen && (transport == "http" || transport == "" && serverURL != "")
	}
	member := func(key string, v *vcrValue) error {
		d, sp := v.d, v.sp
		switch key {
		case "version":
			ver, err := d.str(sp, key)
			if err != nil {
				return err
			}
			if major, _, _ := strings.Cut(ver, "."); major != "1" {
				e := d.errf(sp.start, "mcp-recorder version %q is not one this replayctl reads (1.x): upgrade replayctl", ver)
				e.Err = ErrNewerVersion
				return e
			}
			hasVer = true
		case "metadata":
			if d.doc[sp.start] == 'n' {
				return nil
			}
			metaSeen = true
			o, err := d.object(sp, key)
			if err != nil {
				return err
			}
			if at, err := d.optStr(o["recorded_at"], "metadata.recorded_at"); err != nil {
				return err
			} else if at != "" {
				t, ok := parseISO(at)
				if !ok {
					return d.errf(o["recorded_at"].start, "metadata.recorded_at %q is not an ISO 8601 time like 2026-02-08T10:30:00.000+00:00: fix it", at)
				}
				h.CreatedAt = t.UTC().Format(time.RFC3339Nano)
			}
			if serverURL, err = d.optStr(o["server_url"], "metadata.server_url"); err != nil {
				return err
			}
			if transport, err = d.optStr(o["transport_type"], "metadata.transport_type"); err != nil {
				return err
			}
			if h.ProtocolVersion, err = d.optStr(o["protocol_version"], "metadata.protocol_version"); err != nil {
				return err
			}
			if err := d.headerServer(o["server_info"], "metadata.server_info", &h); err != nil {
				return err
			}
		}
		return nil
	}
	item := func(i int, d *vcrDoc, sp span) error {
		at := fmt.Sprintf("interactions[%d]", i)
		o, err := d.object(sp, at)
		if err != nil {
			return err
		}
		typ, err := d.optStr(o["type"], at+".type")
		if err != nil {
			return err
		}
		lat, _, err := d.millis(o["latency_ms"], at+".latency_ms")
		if err != nil {
			return err
		}
		st, hasStatus, err := d.optNumber(o["response_status"], at+".response_status")
		if err != nil {
			return err
		}
		status := 0
		if hasStatus {
			if st < 100 || st > 599 || st != float64(int(st)) {
				return d.errf(o["response_status"].start, "%s.response_status is %v, want an HTTP status (100 to 599): fix it", at, st)
			}
			status = int(st)
		}
		sse, err := d.optBool(o["response_is_sse"], at+".response_is_sse")
		if err != nil {
			return err
		}
		start := now
		now += lat
		switch typ {
		case "lifecycle":
			p.note("a lifecycle interaction (an HTTP DELETE that ends the session, or the GET stream) carries no message and is left out", i)
			return nil
		case "jsonrpc_request", "notification":
		default:
			return d.errf(sp.start, `%s.type is %q, want "jsonrpc_request", "notification" or "lifecycle": fix the file`, at, typ)
		}
		req, err := d.optRPC(o["request"], at+".request")
		if err != nil {
			return err
		}
		if req == nil {
			return d.errf(sp.start, "%s has no request: a %s interaction needs its JSON-RPC message; fix or remove it", at, typ)
		}
		var reqMeta, respMeta *HTTPMeta
		if isHTTP() && status != 0 {
			reqMeta = &HTTPMeta{Status: status}
			ct := "application/json"
			if sse {
				ct = "text/event-stream"
			}
			respMeta = &HTTPMeta{Status: status, Headers: map[string][]string{"Content-Type": {ct}}}
		}
		if err := p.add(Message{Dir: C2S, Msg: req.msg, Line: req.line, HTTP: reqMeta}, start); err != nil {
			return err
		}
		if typ == "jsonrpc_request" {
			resp, err := d.optRPC(o["response"], at+".response")
			if err != nil {
				return err
			}
			switch {
			case resp == nil:
				p.note("a request has no recorded response (the server gave none it could read): replaying it, the tape has no answer to compare with", i)
			case isNotification(resp.msg):
				p.note("the recorded response is a notification, not the request's answer: mcp-recorder keeps only the first message of an event stream, so the answer that followed it is missing; the notification is imported as the server's", i)
			}
			if resp != nil {
				if err := p.add(Message{Dir: S2C, Msg: resp.msg, Line: resp.line, HTTP: respMeta}, start+lat); err != nil {
					return err
				}
			}
		}
		return nil
	}
	found, err := streamObject(s, "interactions", member, item)
	if err != nil {
		return Header{}, nil, nil, err
	}
	if !hasVer || !found {
		return Header{}, nil, nil, &Error{Path: path, Line: lineBase + 1, Seq: -1, Err: ErrUnknownFormat,
			Msg: `a JSON document without "version" and "interactions": this is not an mcp-recorder file replayctl can read`}
	}
	switch transport {
	case "http", "":
		if transport == "" && serverURL == "" {
			h.Transport = "stdio"
			break
		}
		h.Transport = "streamable-http"
	case "stdio":
		h.Transport = "stdio"
	default:
		return Header{}, nil, nil, &Error{Path: path, Seq: -1, Msg: fmt.Sprintf(`metadata.transport_type is %q, want "http" or "stdio": fix the file`, transport)}
	}
	if serverURL != "" && h.Transport != "stdio" {
		h.Server = serverOf(h.Server)
		h.Server.URL = MaskURL(serverURL)
	}
	im := p.imported("s1")
	warnings := p.warnings("interactions")
	if len(p.refs) > 0 {
		warnings = append(warnings, fmt.Sprintf("tape %s: mcp-recorder keeps no time between interactions: each is placed when the one before it ended (its latency_ms), so the pauses between them are lost", path))
	}
	return h, im, warnings, nil
}

// isNotification reports whether msg is a JSON-RPC notification.
func isNotification(msg []byte) bool {
	rpc, err := jsonrpc.Parse(msg)
	return err == nil && rpc.Kind == jsonrpc.KindNotification
}

// FormatRecorder is mcp-recorder's JSON cassette.
const FormatRecorder Format = "mcp-recorder"

func init() { Register(recorderImporter{}) }

// recorderImporter imports an mcp-recorder cassette: streamed when its
// first member is a string "version", else once read whole if it has
// "interactions" and "version" but no "session".
type recorderImporter struct{}

func (recorderImporter) Format() Format { return FormatRecorder }
func (recorderImporter) Stage() Stage   { return StageDocument }

func (recorderImporter) Detect(p *Probe) bool {
	if p.Whole() != nil {
		return documentKind(p.Whole()) == FormatRecorder
	}
	if p.wholeWithoutDocument() {
		// A document on one line with none of these members is asked
		// about for the document formats of others; its first member
		// alone does not make it a recording (it never did: detection
		// refused such a line before asking).
		return false
	}
	return firstMember(p.First(), p.n.br) == `"version":string`
}

func (recorderImporter) Import(p *Probe) (*Imported, error) {
	return importDecoded(p, decodeRecorder)
}
