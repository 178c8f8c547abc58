package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"
)

// DecodeHAR imports a HAR 1.2 file (as browser DevTools, Charles,
// mitmproxy and Playwright export it) of Streamable HTTP MCP traffic into
// a synthesized header, the messages in time order numbered from 0, and
// warnings that say what was left out and why.
//
// Each entry is one HTTP exchange. A POST's body is the client's message
// (or JSON-RPC batch, kept as one message); its answer, an
// application/json body or a text/event-stream body split into events
// (see splitSSE), holds the server's messages, each with the response's
// status and the headers that matter (Content-Type, Mcp-Session-Id,
// Retry-After) in HTTP and, from a stream, its SSE id, event and retry. A
// client message's HTTP holds the request headers that matter (Mcp-*,
// Last-Event-Id) and the status of the answer to its POST, so that a 202
// or a 401 with no body is kept. A GET's event stream holds server
// messages only. Bodies may be base64 ("encoding": "base64"). Credential
// headers (Sensitive) are never imported. Entries that are not MCP (other
// methods, other content, bodies that are not JSON-RPC, a DELETE that ends
// a session) are skipped and counted in the warnings.
//
// Times: the request at startedDateTime; the answer's first message when
// its first byte came (startedDateTime + blocked, dns, connect, send and
// wait); further events of a stream spread evenly up to the entry's end,
// as a HAR keeps no time per event. Sessions: one per Mcp-Session-Id
// (that of the request, or for an initialize that of its answer);
// exchanges without one (stateless 2026-07-28 traffic, or a server that
// gives no ids) form one session per endpoint URL, a new one at each
// initialize request. Sessions are named s1, s2, … in order of first
// appearance. A HAR written by replayctl's exporter carries the tape's
// header, session names, seqs, exact times and each message's http, sse
// and unknown members in "_replayctl" members, which the importer uses
// instead, giving back the tape that was exported line for line (times
// and seqs as they were, unclamped). An entry whose "_replayctl" does not
// count as many messages as the entry holds (edited by hand) makes the
// import order every message by time instead.
//
// Bad input is an *Error naming the line and the JSON path, e.g.
// "log.entries[3].startedDateTime".
func DecodeHAR(path string, doc []byte) (Header, []Message, []string, error) {
	var store memStore
	h, im, warnings, err := decodeHAR(path, bytes.NewReader(doc), 0, &store)
	if err != nil {
		return Header{}, nil, nil, err
	}
	msgs, err := im.messages()
	if err != nil {
		return Header{}, nil, nil, err
	}
	return h, msgs, warnings, nil
}

// harMsgs are the messages found in the entries, before ordering, as
// little as ordering needs: each one's ref (its place in the store, seq
// from _replayctl or -1, time from _replayctl or from its entry's start)
// and, by the same index, its entry and place in it.
type harMsgs struct {
	refs  []importRef
	entry []int32
	order []int32 // position in the entry
	abs   []bool  // the time is _replayctl's, not from the entry's start
}

func (h *harMsgs) add(ref importRef, entry, order int, abs bool) {
	h.refs = append(h.refs, ref)
	h.entry = append(h.entry, int32(entry))
	h.order = append(h.order, int32(order))
	h.abs = append(h.abs, abs)
}

// sort orders the messages by seq (exact) or by time, entry and place
// in the entry, keeping the order they were found in among equals.
func (h *harMsgs) sort(exact bool) {
	sort.Stable(harOrder{h, exact})
}

type harOrder struct {
	*harMsgs
	exact bool
}

func (o harOrder) Len() int { return len(o.refs) }

func (o harOrder) Swap(a, b int) {
	o.refs[a], o.refs[b] = o.refs[b], o.refs[a]
	o.entry[a], o.entry[b] = o.entry[b], o.entry[a]
	o.order[a], o.order[b] = o.order[b], o.order[a]
	o.abs[a], o.abs[b] = o.abs[b], o.abs[a]
}

func (o harOrder) Less(a, b int) bool {
	x, y := o.refs[a], o.refs[b]
	if o.exact {
		return x.seq < y.seq
	}
	if x.tus != y.tus {
		return x.tus < y.tus
	}
	if o.entry[a] != o.entry[b] {
		return o.entry[a] < o.entry[b]
	}
	return o.order[a] < o.order[b]
}

// harSkips counts skipped entries by reason, in the order first seen.
type harSkips struct {
	reasons []string
	count   map[string]int
	first   map[string]int // the first entry skipped for a reason
}

func (s *harSkips) add(reason string, entry int) {
	if s.count == nil {
		s.count, s.first = map[string]int{}, map[string]int{}
	}
	if s.count[reason] == 0 {
		s.reasons = append(s.reasons, reason)
		s.first[reason] = entry
	}
	s.count[reason]++
}

// harImport is a HAR being imported: it reads the document once, entry
// by entry, putting each message into store as it finds it, and keeps
// only what ordering and numbering need (see harMsgs; an entry's time
// per entry).
type harImport struct {
	s        *jsonStream
	d        *vcrDoc // for the errors of harExchange
	store    msgStore
	msgs     harMsgs
	stored   int
	ats      []time.Time // each entry's startedDateTime
	skips    harSkips
	warnings []string
	sess     harSessions
	base     time.Time // the earliest entry
	hasBase  bool
	first    time.Time // the earliest MCP exchange
	hasFirst bool
	exact    bool
	version  string
	endpoint string
	creator  string
	hdr      *Header
	// later is the first error found in an entry's content: it is
	// returned once every entry has been read and found sound.
	later error
}

// decodeHAR imports the HAR document read from src; lineBase is the
// number of lines before it. Errors about the document are *Error: a
// syntax error (the file torn or not JSON) before any other, then one
// about the shape of the log or an entry, then one about an entry's
// content (a body that is not base64), each the first in the file.
func decodeHAR(path string, src io.Reader, lineBase int64, store msgStore) (Header, *imported, []string, error) {
	x := &harImport{s: newJSONStream(path, src, lineBase), d: &vcrDoc{path: path}, store: store, exact: true,
		sess: harSessions{byID: map[string]string{}, byURL: map[string]string{}}}
	if err := x.read(); err != nil {
		return Header{}, nil, nil, err
	}
	if x.later != nil {
		return Header{}, nil, nil, x.later
	}
	h, refs := x.finish()
	return h, &imported{store: store, refs: refs}, x.warnings, nil
}

// entry finds the messages of entry i and puts them into the store.
func (x *harImport) entry(e *harItem, i int) error {
	p := fmt.Sprintf("log.entries[%d]", i)
	found, reason, err := harExchange(x.d, e, p)
	if err != nil {
		return err
	}
	if reason != "" {
		x.skips.add(reason, i)
		return nil
	}
	if x.endpoint == "" {
		x.endpoint = e.Request.URL
	}
	name := x.sess.of(&e.harEntry, found)
	if !x.hasFirst || e.at.Before(x.first) {
		x.first, x.hasFirst = e.at, true
	}
	ttfb, end := harTimes(&e.harEntry)
	var nResp int
	for _, f := range found {
		if f.Dir == S2C {
			nResp++
		}
	}
	xr := e.Replayctl
	if xr != nil && len(xr.Seq) != len(found) {
		x.exact = false // edited by hand, or not our export: order by time
	}
	meta := xr != nil && len(xr.Meta) == len(found)
	k := 0
	for j, f := range found {
		f.Session = name
		var rel int64 // from the entry's start
		switch {
		case f.Dir == C2S:
		case nResp <= 1 || end <= ttfb:
			rel = ttfb
		default:
			rel = ttfb + (end-ttfb)*int64(k)/int64(nResp-1)
		}
		if f.Dir == S2C {
			k++
		}
		if meta {
			if err := applyMeta(&f, xr.Meta[j]); err != nil {
				return entryErr(x.d, e, "%s._replayctl.meta[%d].%s", p, j, err)
			}
		}
		ref, abs := importRef{i: int32(x.stored), seq: -1, tus: rel}, false
		if xr != nil {
			if xr.Session != "" {
				f.Session = xr.Session
			}
			if j < len(xr.TUS) {
				ref.tus, abs = xr.TUS[j], true
			}
			if j < len(xr.Seq) {
				ref.seq = xr.Seq[j]
			} else {
				x.exact = false
			}
		}
		if x.version == "" {
			x.version = messageVersion(f.Msg, e.Request.Headers)
		}
		if err := x.store.add(f); err != nil {
			return &Error{Path: x.s.path, Line: e.line, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot keep %s's messages (%v)", p, err)}
		}
		x.stored++
		x.msgs.add(ref, i, j, abs)
	}
	if e.Response.Content.Text == "" && e.Response.Content.Size > 0 && e.Response.Status != 202 {
		x.warnings = append(x.warnings, fmt.Sprintf("tape %s line %d: %s: the response body (%d bytes) is not in the HAR (the recorder left it out): the server's messages of this exchange are missing", x.s.path, e.line, p, e.Response.Content.Size))
	}
	if e.tail {
		x.warnings = append(x.warnings, fmt.Sprintf("tape %s line %d: %s: the event stream ends in the middle of an event (the capture stopped); its last event is kept", x.s.path, e.line, p))
	}
	return nil
}

// applyMeta gives a message the http, sse and unknown members its line
// had, as replayctl's exporter kept them in _replayctl.meta.
func applyMeta(f *Message, meta harMeta) error {
	f.HTTP, f.SSE, f.Extra = MaskHTTP(meta.HTTP), meta.SSE, nil // a credential is never restored
	for k, v := range meta.Extra {
		if !json.Valid([]byte(v)) {
			return fmt.Errorf("extra[%q] is not JSON text: remove it or export the tape again", k)
		}
		if f.Extra == nil {
			f.Extra = map[string]json.RawMessage{}
		}
		f.Extra[k] = json.RawMessage(MaskMember(k, []byte(v)))
	}
	return nil
}

// finish orders the messages, numbers them and makes the header.
func (x *harImport) finish() (Header, []importRef) {
	exact := x.exact && len(x.ats) > 0
	for k := range x.msgs.refs {
		if !x.msgs.abs[k] {
			x.msgs.refs[k].tus += x.ats[x.msgs.entry[k]].Sub(x.base).Microseconds()
		}
	}
	// shift: the time from base to the first MCP exchange, taken off
	// every time so that the tape starts at 0 (base is the earliest entry,
	// which may be one that is skipped).
	shift := int64(0)
	if !exact && x.hasFirst {
		shift = x.first.Sub(x.base).Microseconds()
	}
	x.msgs.sort(exact)
	refs := x.msgs.refs
	x.msgs = harMsgs{}
	if !exact { // else the tape's own seqs and times, as they were
		var now int64
		for k := range refs {
			now = max(now, max(refs[k].tus-shift, 0))
			refs[k].seq, refs[k].tus = int64(k), now
		}
	}
	for _, r := range x.skips.reasons {
		x.warnings = append(x.warnings, fmt.Sprintf("tape %s: %s skipped (first: log.entries[%d]): %s", x.s.path, harEntries(x.skips.count[r]), x.skips.first[r], r))
	}
	var h Header
	if x.hdr != nil {
		h = *x.hdr
		h.Format, h.Version = FormatName, FormatVersion
	} else {
		h = Header{Format: FormatName, Version: FormatVersion, ProtocolVersion: x.version, Transport: "streamable-http",
			Tags: map[string]string{"imported_from": "har"}}
		if x.hasBase {
			h.CreatedAt = x.base.Add(time.Duration(shift) * time.Microsecond).UTC().Format(time.RFC3339Nano)
		}
		if x.endpoint != "" {
			h.Server = &Server{URL: x.endpoint}
		}
		if x.creator != "" {
			h.Tags["har_creator"] = x.creator
		}
	}
	return h, refs
}

// harItem is an entry as decoded, with where it starts.
type harItem struct {
	harEntry
	at   time.Time
	line int64
	tail bool // its event stream was cut in an event
}

// harTimes returns, in µs from the entry's start, when the answer's first
// byte came and when the exchange ended.
func harTimes(e *harEntry) (ttfb, end int64) {
	t := e.Timings
	var ms float64
	for _, v := range []float64{t.Blocked, t.DNS, t.Connect, t.Send, t.Wait} {
		if v > 0 {
			ms += v
		}
	}
	end = int64(max(e.Time, 0) * 1000)
	ttfb = int64(ms * 1000)
	if ttfb == 0 || ttfb > end {
		ttfb = end
	}
	return ttfb, end
}

// harEntries counts HAR entries in words: "1 HAR entry", "3 HAR entries".
func harEntries(n int) string {
	if n == 1 {
		return "1 HAR entry"
	}
	return fmt.Sprintf("%d HAR entries", n)
}

// FormatHAR is an HTTP Archive 1.2 of Streamable HTTP traffic.
const FormatHAR Format = "har"

func init() { Register(harImporter{}) }

// harImporter imports a HAR file: streamed when its first member is
// "log", as every HAR writer puts it, else once read whole if it has a
// top-level "log".
type harImporter struct{}

func (harImporter) Format() Format { return FormatHAR }
func (harImporter) Stage() Stage   { return StageDocument }

func (harImporter) Detect(p *Probe) bool {
	if p.Whole() != nil {
		return isHAR(p.Whole())
	}
	return startsWithKey(p.First(), p.n.br, "log")
}

func (harImporter) Import(p *Probe) (*Imported, error) { return importDecoded(p, decodeHAR) }
