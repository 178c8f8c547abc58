package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// isInitialized reports whether the request msg, parsed as rpc, has
// "notifications/initialized" as its "method" member, written so. A
// valid message of another method has not (its method is the member,
// decoded): only the others are scanned for it.
func isInitialized(rpc jsonrpc.Message, msg []byte) bool {
	const method = "notifications/initialized"
	if rpc.Kind != jsonrpc.KindInvalid && rpc.Method != method {
		return false
	}
	return string(pick(msg, "method")) == `"`+method+`"`
}

// initializedMsg is the notification Agent VCR does not store and the
// importer puts back after the handshake.
var initializedMsg = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

// DecodeVCR imports an Agent VCR cassette (one JSON document) into a
// synthesized header and the messages in wire order, numbered from 0:
// the initialize request and response, a restored notifications/initialized,
// then for each interaction its server notifications, the request and the
// response. Who sent a request is decided from the request (see senders),
// not from the interaction's "direction". Times are microseconds since the
// earliest time in the file and never decrease in seq order. Each message
// is the recorded JSON-RPC object made compact, with its key order kept and
// the members the recorder writes as null for "absent" left out (see
// dropNulls). Bad input is an *Error whose
// message names the JSON path, e.g. "session.interactions[2].latency_ms is a
// string, want a number"; path is used in errors.
func DecodeVCR(path string, doc []byte) (Header, []Message, error) {
	return decodeVCR(path, doc, 0)
}

// vcrDoc is a document being imported; lineBase is the number of lines in
// the file before doc.
type vcrDoc struct {
	path     string
	doc      []byte
	lineBase int64
	nl       []int // offsets of the newlines in doc
	valid    bool  // doc is valid JSON, checked whole (decodeVCRLine)
	// block is where rpc writes the compact copies of a valid doc's
	// messages, many to an allocation (see compactCopy).
	block []byte
}

// vcrMsg is a JSON-RPC object from the document and the line it starts on.
type vcrMsg struct {
	msg  json.RawMessage
	line int64
}

type vcrInteraction struct {
	at    time.Time
	hasAt bool
	zoned bool // at was written with a zone (see inZoneOf)
	label Dir  // the interaction's "direction", as written
	dir   Dir  // who sent the request (see senders)
	req   vcrMsg
	resp  *vcrMsg
	notes []vcrMsg
	latUS int64
}

func decodeVCR(path string, doc []byte, lineBase int64) (Header, []Message, error) {
	var store memStore
	var h Header
	var im *imported
	var err error
	if oneLineDoc(doc, true, nil) {
		h, im, err = decodeVCRLine(path, doc, lineBase, &store)
	} else {
		h, im, err = decodeVCRStream(path, bytes.NewReader(doc), lineBase, &store)
	}
	if err != nil {
		return Header{}, nil, err
	}
	msgs, err := im.messages()
	if err != nil {
		return Header{}, nil, err
	}
	return h, msgs, nil
}

// checkVCRVersion refuses a format_version (at v) this replayctl does not
// read.
func checkVCRVersion(d *vcrDoc, v span, version string) error {
	if major, _, _ := strings.Cut(version, "."); major != "1" {
		e := d.errf(v.start, "Agent VCR format_version %q is not one this replayctl reads (1.x): upgrade replayctl, or export the cassette in format 1", version)
		e.Err = ErrNewerVersion
		if major == "0" || major == "" {
			e.Err = ErrUnknownFormat
		}
		return e
	}
	return nil
}

// metadata fills the header from "metadata" and returns the session name
// and the recording time.
// A zoned recording time (isoZoned) is returned in its zone (see
// inZoneOf).
func (d *vcrDoc) metadata(v span, h *Header) (session string, at time.Time, hasAt bool, err error) {
	session = "s1"
	if !v.ok() || d.doc[v.start] == 'n' {
		return session, at, false, nil
	}
	meta, err := d.object(v, "metadata")
	if err != nil {
		return session, at, false, err
	}
	if s, err := d.optStr(meta["recorded_at"], "metadata.recorded_at"); err != nil {
		return session, at, false, err
	} else if s != "" {
		if at, hasAt = parseISO(s); !hasAt {
			return session, at, false, d.errf(meta["recorded_at"].start, "metadata.recorded_at %q is not an ISO 8601 time like 2026-02-08T10:30:00.000: fix it", s)
		}
		h.CreatedAt = at.UTC().Format(time.RFC3339Nano)
	}
	if h.Transport, err = d.optStr(meta["transport"], "metadata.transport"); err != nil {
		return session, at, hasAt, err
	}
	if id, err := d.optStr(meta["session_id"], "metadata.session_id"); err != nil {
		return session, at, hasAt, err
	} else if id != "" {
		session = id
	}
	var srv Server
	if info := meta["server_info"]; info.ok() && d.doc[info.start] != 'n' {
		o, err := d.object(info, "metadata.server_info")
		if err != nil {
			return session, at, hasAt, err
		}
		if srv.Name, err = d.optStr(o["name"], "metadata.server_info.name"); err != nil {
			return session, at, hasAt, err
		}
		if srv.Version, err = d.optStr(o["version"], "metadata.server_info.version"); err != nil {
			return session, at, hasAt, err
		}
	}
	cmd, err := d.optStr(meta["server_command"], "metadata.server_command")
	if err != nil {
		return session, at, hasAt, err
	}
	args, err := d.optStrings(meta["server_args"], "metadata.server_args")
	if err != nil {
		return session, at, hasAt, err
	}
	if cmd != "" {
		// Agent VCR writes the command line as one string ("node srv.js")
		// when it has no args: split it as a shell would, quotes and all.
		argv := []string{cmd}
		if len(args) == 0 {
			if argv, err = shellWords(cmd); err != nil {
				return session, at, hasAt, d.errf(meta["server_command"].start, "metadata.server_command %q: %v: fix the quoting, or give the arguments as server_args", cmd, err)
			}
		}
		srv.Command = append(argv, args...)
	}
	if srv.Name != "" || srv.Version != "" || srv.Command != nil {
		h.Server = &srv
	}
	if t := meta["tags"]; t.ok() && d.doc[t.start] != 'n' {
		o, err := d.object(t, "metadata.tags")
		if err != nil {
			return session, at, hasAt, err
		}
		for k, v := range o {
			s, err := d.str(v, "metadata.tags."+k)
			if err != nil {
				return session, at, hasAt, err
			}
			if h.Tags == nil {
				h.Tags = make(map[string]string, len(o))
			}
			h.Tags[k] = s
		}
	}
	return session, at, hasAt, nil
}

// interaction decodes element n of session.interactions.
func (d *vcrDoc) interaction(item span, n int) (vcrInteraction, error) {
	p := interPath(n)
	o, err := d.object(item, p.String())
	if err != nil {
		return vcrInteraction{}, err
	}
	var m vcrMembers
	for k, v := range o {
		m.set(k, v)
	}
	return d.interactionOf(item, &m, p)
}

// interPath is the JSON path of session.interactions[n], written out only
// for an error: a cassette's import built six strings per interaction for
// paths it never showed.
type interPath int

func (p interPath) String() string { return "session.interactions[" + strconv.Itoa(int(p)) + "]" }

// vcrMembers are the members of an interaction that interactionOf reads
// (the last one of a name wins, as in vcrDoc.object); the others are
// ignored.
type vcrMembers struct {
	sequence, timestamp, direction, request, response, notifications, latencyMS span
}

func (m *vcrMembers) set(key string, v span) {
	switch key {
	case "sequence":
		m.sequence = v
	case "timestamp":
		m.timestamp = v
	case "direction":
		m.direction = v
	case "request":
		m.request = v
	case "response":
		m.response = v
	case "notifications":
		m.notifications = v
	case "latency_ms":
		m.latencyMS = v
	}
}

// interactionOf is interaction for the members o of the object at item.
func (d *vcrDoc) interactionOf(item span, o *vcrMembers, p interPath) (vcrInteraction, error) {
	var in vcrInteraction
	if sq := o.sequence; sq.ok() && d.doc[sq.start] != 'n' {
		if _, ok := plainNumber(d.doc[sq.start:sq.end]); !ok {
			if _, err := d.number(sq, p.String()+".sequence"); err != nil {
				return in, err
			}
		}
	}
	ts, err := d.optStrIn(o.timestamp, p, ".timestamp")
	if err != nil {
		return in, err
	}
	if ts != "" {
		if in.at, in.hasAt = parseISO(ts); !in.hasAt {
			return in, d.errf(o.timestamp.start, "%s.timestamp %q is not an ISO 8601 time like 2026-02-08T10:30:01.050: fix it", p, ts)
		}
		in.zoned = isoZoned(ts)
	}
	dir, err := d.optStrIn(o.direction, p, ".direction")
	if err != nil {
		return in, err
	}
	switch dir {
	case "", "client_to_server":
		in.label = C2S
	case "server_to_client":
		in.label = S2C
	default:
		return in, d.errf(o.direction.start, `%s.direction is %q, want "client_to_server" or "server_to_client": fix it`, p, dir)
	}
	req, err := d.optRPCIn(o.request, p, ".request")
	if err != nil {
		return in, err
	}
	if req == nil {
		return in, d.errf(item.start, "%s has no request: each interaction needs its JSON-RPC request; fix or remove it", p)
	}
	in.req = *req
	if in.resp, err = d.optRPCIn(o.response, p, ".response"); err != nil {
		return in, err
	}
	if n := o.notifications; n.ok() && d.doc[n.start] != 'n' {
		notes, err := d.array(n, p.String()+".notifications")
		if err != nil {
			return in, err
		}
		for j, nv := range notes {
			m, err := d.rpc(nv, fmt.Sprintf("%s.notifications[%d]", p, j))
			if err != nil {
				return in, err
			}
			in.notes = append(in.notes, m)
		}
	}
	if l := o.latencyMS; l.ok() && d.doc[l.start] != 'n' {
		ms, err := d.number(l, p.String()+".latency_ms")
		if err != nil {
			return in, err
		}
		if ms < 0 || ms > 1e12 {
			return in, d.errf(l.start, "%s.latency_ms is %v, want a number of milliseconds ≥ 0: fix it", p, ms)
		}
		in.latUS = int64(math.Round(ms * 1000))
	}
	return in, nil
}

// optStrIn is optStr for member of the interaction at p, its path written
// out only for an error.
func (d *vcrDoc) optStrIn(v span, p interPath, member string) (string, error) {
	if !v.ok() || d.doc[v.start] == 'n' {
		return "", nil
	}
	if s, ok := plainString(d.doc[v.start:v.end]); ok {
		return s, nil
	}
	return d.str(v, p.String()+member)
}

// optRPCIn is optRPC for member of the interaction at p, its path written
// out only for an error.
func (d *vcrDoc) optRPCIn(v span, p interPath, member string) (*vcrMsg, error) {
	if !v.ok() || d.doc[v.start] == 'n' {
		return nil, nil
	}
	if m, ok := d.validRPC(v); ok {
		return &m, nil
	}
	return d.optRPC(v, p.String()+member)
}

// senders decides who sent each interaction's request from the request
// itself, not from its "direction": Agent VCR's recorder writes the
// direction of the interaction's last message (a client's request and the
// server's answer are "server_to_client"), while cassettes written by hand
// name the request's sender. A request of a method only servers send
// (sampling/createMessage, roots/list, elicitation/create) is the
// server's, any other request the client's. ping may come from either
// side: it follows the direction when the file's directions name senders,
// and is the client's in the recorder's shape (which records only the
// client's requests). A notification follows its direction.
func senders(inters []vcrInteraction) {
	slim := make([]vcrSlim, len(inters))
	for i, in := range inters {
		slim[i] = vcrSlim{label: in.label, method: requestMethod(in.req.msg)}
	}
	bySender := vcrBySender(slim)
	for i := range inters {
		inters[i].dir = slim[i].sender(bySender)
	}
}

// requestMethod is the method of a JSON-RPC request (one with an id), or
// "" for anything else.
func requestMethod(msg []byte) string {
	rpc, err := jsonrpc.Parse(msg)
	if err != nil || rpc.Kind != jsonrpc.KindRequest {
		return ""
	}
	return rpc.Method
}

func opposite(d Dir) Dir {
	if d == C2S {
		return S2C
	}
	return C2S
}

// protocolVersion is the negotiated version: the initialize result's, else
// the one the client asked for.
func protocolVersion(req, resp *vcrMsg) string {
	var s string
	if resp != nil {
		if v := pick(resp.msg, "result", "protocolVersion"); json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	if req != nil {
		if v := pick(req.msg, "params", "protocolVersion"); json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return ""
}

// pick returns the raw value at a path of member names, or nil.
func pick(doc []byte, keys ...string) []byte {
	for _, k := range keys {
		var found []byte
		if jsonscan.Members(doc, func(m jsonscan.Member) bool {
			if string(m.Key) == k {
				found = doc[m.Start:m.End]
				return false
			}
			return true
		}) != nil || found == nil {
			return nil
		}
		doc = found
	}
	return doc
}

// parseISO parses an ISO 8601 time; one without a zone is UTC (inZoneOf
// moves it into another).
func parseISO(s string) (time.Time, bool) {
	if t, ok := plainISO(s); ok {
		return t, true
	}
	layouts := isoLayouts[:]
	if len(s) > len("2006-01-02T15:04:05") && !isoZoned(s) {
		// No zone: the layouts without one first (at most one layout
		// matches a time, so their order changes only the cost).
		layouts = isoLayoutsNoZone[:]
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// isoZoned reports whether the ISO 8601 time s ends in a zone (Z or an
// offset).
func isoZoned(s string) bool {
	const base = len("2006-01-02T15:04:05")
	return len(s) > base && strings.ContainsAny(s[base:], "Z+-")
}

// inZoneOf is t, a zone-less time parseISO read as UTC, read on the
// clock of zone's location instead: the same date and time of day there.
// Agent VCR's recorder writes its times without a zone, on the recording
// machine's local clock; a cassette whose metadata.recorded_at carries a
// zone says which clock that is, and its zone-less interaction times are
// on it too — read as UTC they would be hours away from the handshake.
func inZoneOf(t, zone time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), zone.Location())
}

// plainISO reads the common shape of a cassette's time,
// 2006-01-02T15:04:05 with 'T' or ' ' and from none to nine digits of a
// second, no zone (UTC), without time.Parse's walk over its layouts; it
// reports false for anything else, and for a field out of range (that
// time.Date would carry over), which parseISO then reads (or refuses)
// with time.Parse.
func plainISO(s string) (time.Time, bool) {
	const base = len("2006-01-02T15:04:05")
	if len(s) < base || len(s) == base+1 || len(s) > base+10 ||
		s[4] != '-' || s[7] != '-' || s[10] != 'T' && s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(b string) (int, bool) {
		n := 0
		for i := 0; i < len(b); i++ {
			if b[i] < '0' || b[i] > '9' {
				return 0, false
			}
			n = n*10 + int(b[i]-'0')
		}
		return n, true
	}
	var f [6]int
	for i, r := range [6][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}} {
		v, ok := num(s[r[0]:r[1]])
		if !ok {
			return time.Time{}, false
		}
		f[i] = v
	}
	ns := 0
	if len(s) > base {
		if s[base] != '.' {
			return time.Time{}, false
		}
		frac := s[base+1:]
		v, ok := num(frac)
		if !ok {
			return time.Time{}, false
		}
		for range 9 - len(frac) {
			v *= 10
		}
		ns = v
	}
	if f[1] < 1 || f[1] > 12 || f[3] > 23 || f[4] > 59 || f[5] > 59 {
		return time.Time{}, false
	}
	t := time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], ns, time.UTC)
	if t.Day() != f[2] { // day 0, or past the month's end
		return time.Time{}, false
	}
	return t, true
}

// The layouts parseISO tries, in order; with no zone, those without one
// first.
var (
	isoLayouts       = [...]string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"}
	isoLayoutsNoZone = [...]string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00"}
)

// FormatVCR is an Agent VCR cassette (.vcr).
const FormatVCR Format = "agent-vcr"

func init() { Register(vcrImporter{}) }

// vcrImporter imports an Agent VCR cassette: streamed into a spill file
// when its first member is "format_version" (as Agent VCR writes it, and
// not a number, which is an mcp-cassette's); read whole, it is what a
// JSON document is when no other importer claims it, so its errors say
// what the document is not.
type vcrImporter struct{}

func (vcrImporter) Format() Format { return FormatVCR }
func (vcrImporter) Stage() Stage   { return StageDocument }

func (vcrImporter) Detect(p *Probe) bool {
	if p.Whole() != nil {
		return documentKind(p.Whole()) == "" && !isHAR(p.Whole())
	}
	return startsWithKey(p.First(), p.n.br, "format_version") && firstMember(p.First(), p.n.br) != `"format_version":number`
}

func (vcrImporter) Import(p *Probe) (*Imported, error) {
	if p.Whole() != nil {
		h, msgs, err := decodeVCR(p.Path(), p.Whole(), p.lineBase())
		if err != nil {
			return nil, notATape(err)
		}
		return ImportedMessages(h, msgs, nil), nil
	}
	if p.oneLineDoc() {
		return importVCRLine(p)
	}
	store, err := newSpillStore(p.Path())
	if err != nil {
		return nil, err
	}
	h, im, err := decodeVCRStream(p.Path(), p.Rest(), p.lineBase(), store)
	if err != nil {
		store.close()
		return nil, notATape(err)
	}
	return &Imported{Header: h, src: im}, nil
}

// importVCRLine imports a cassette on one line, First (oneLineDoc): its
// messages are kept in memory, or in a spill file when the line is
// longer than maxLineInMemory.
func importVCRLine(p *Probe) (*Imported, error) {
	var store msgStore = &memStore{}
	if len(p.First()) > maxLineInMemory {
		st, err := newSpillStore(p.Path())
		if err != nil {
			return nil, err
		}
		store = st
	}
	h, im, err := decodeVCRLine(p.Path(), p.First(), p.lineBase(), store)
	if err != nil {
		store.close()
		return nil, notATape(err)
	}
	return &Imported{Header: h, src: im}, nil
}

// shellWords splits a command line as a POSIX shell splits words, without
// expanding anything: blanks separate words; single quotes keep what they
// hold as it is; double quotes keep it too, but a backslash in them before
// $, `, ", \ or a newline keeps only that character; a backslash outside
// quotes keeps the next character. It fails on an unterminated quote or a
// trailing backslash.
func shellWords(line string) ([]string, error) {
	var (
		words []string
		w     strings.Builder
		in    bool // a word is open (it may be empty: "")
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("a single quote is not closed")
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
			in = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, errors.New("a double quote is not closed")
			}
			in = true
		case c == '\\':
			if i+1 == len(line) {
				return nil, errors.New("it ends with a backslash")
			}
			i++
			w.WriteByte(line[i])
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
