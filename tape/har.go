package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
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
	return decodeHAR(path, doc, 0)
}

// harMsg is one message found in an entry, before ordering.
type harMsg struct {
	m     Message
	entry int
	order int   // position in the entry
	seq   int64 // from _replayctl, or -1
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

func decodeHAR(path string, doc []byte, lineBase int64) (Header, []Message, []string, error) {
	d := &vcrDoc{path: path, doc: doc, lineBase: lineBase}
	for i, c := range doc {
		if c == '\n' {
			d.nl = append(d.nl, i)
		}
	}
	var h Header
	if err := checkJSON(d, "HAR file"); err != nil {
		return h, nil, nil, err
	}
	entries, creator, hdr, err := harEntries(d)
	if err != nil {
		return h, nil, nil, err
	}
	var (
		msgs     []harMsg
		skips    harSkips
		warnings []string
		sess     = harSessions{byID: map[string]string{}, byURL: map[string]string{}}
		base     time.Time
		hasBase  bool
		exact    = len(entries) > 0
		version  string
		endpoint string
	)
	for _, e := range entries {
		if !hasBase || e.at.Before(base) {
			base, hasBase = e.at, true
		}
		if e.Replayctl == nil || len(e.Replayctl.Seq) == 0 {
			exact = false
		}
	}
	// shift: the time from base to the first MCP exchange, taken off
	// every time so that the tape starts at 0 (base is the earliest entry,
	// which may be one that is skipped).
	shift := int64(-1)
	for i := range entries {
		e := &entries[i]
		p := fmt.Sprintf("log.entries[%d]", i)
		found, reason, err := harExchange(d, e, p)
		if err != nil {
			return h, nil, nil, err
		}
		if reason != "" {
			skips.add(reason, i)
			continue
		}
		if endpoint == "" {
			endpoint = e.Request.URL
		}
		name := sess.of(&e.harEntry, found)
		t0 := e.at.Sub(base).Microseconds()
		if shift < 0 || t0 < shift {
			shift = t0
		}
		ttfb, end := harTimes(&e.harEntry)
		var nResp int
		for _, f := range found {
			if f.Dir == S2C {
				nResp++
			}
		}
		x := e.Replayctl
		if x != nil && len(x.Seq) != len(found) {
			exact = false // edited by hand, or not our export: order by time
		}
		meta := x != nil && len(x.Meta) == len(found)
		k := 0
		for j, f := range found {
			f.Session = name
			switch {
			case f.Dir == C2S:
				f.TUS = t0
			case nResp <= 1 || end <= ttfb:
				f.TUS = t0 + ttfb
			default:
				f.TUS = t0 + ttfb + (end-ttfb)*int64(k)/int64(nResp-1)
			}
			if f.Dir == S2C {
				k++
			}
			if meta {
				f.HTTP, f.SSE, f.Extra = MaskHTTP(x.Meta[j].HTTP), x.Meta[j].SSE, nil
				for k, v := range x.Meta[j].Extra {
					if !json.Valid([]byte(v)) {
						return h, nil, nil, entryErr(d, e, "%s._replayctl.meta[%d].extra[%q] is not JSON text: remove it or export the tape again", p, j, k)
					}
					if f.Extra == nil {
						f.Extra = map[string]json.RawMessage{}
					}
					f.Extra[k] = json.RawMessage(MaskMember(k, []byte(v)))
				}
			}
			hm := harMsg{m: f, entry: i, order: j, seq: -1}
			if x != nil {
				if x.Session != "" {
					hm.m.Session = x.Session
				}
				if j < len(x.TUS) {
					hm.m.TUS = x.TUS[j]
				}
				if j < len(x.Seq) {
					hm.seq = x.Seq[j]
				} else {
					exact = false
				}
			}
			if version == "" {
				version = messageVersion(f.Msg, e.Request.Headers)
			}
			msgs = append(msgs, hm)
		}
		if e.Response.Content.Text == "" && e.Response.Content.Size > 0 && e.Response.Status != 202 {
			warnings = append(warnings, fmt.Sprintf("tape %s line %d: %s: the response body (%d bytes) is not in the HAR (the recorder left it out): the server's messages of this exchange are missing", path, e.line, p, e.Response.Content.Size))
		}
		if e.tail {
			warnings = append(warnings, fmt.Sprintf("tape %s line %d: %s: the event stream ends in the middle of an event (the capture stopped); its last event is kept", path, e.line, p))
		}
	}
	sort.SliceStable(msgs, func(a, b int) bool {
		x, y := msgs[a], msgs[b]
		if exact {
			return x.seq < y.seq
		}
		if x.m.TUS != y.m.TUS {
			return x.m.TUS < y.m.TUS
		}
		if x.entry != y.entry {
			return x.entry < y.entry
		}
		return x.order < y.order
	})
	if exact || shift < 0 {
		shift = 0
	}
	out := make([]Message, len(msgs))
	var now int64
	for i, hm := range msgs {
		m := hm.m
		if exact { // the tape's own seqs and times, as they were
			m.Seq = hm.seq
			out[i] = m
			continue
		}
		m.TUS = max(m.TUS-shift, 0)
		m.Seq = int64(i)
		now = max(now, m.TUS)
		m.TUS = now
		out[i] = m
	}
	for _, r := range skips.reasons {
		warnings = append(warnings, fmt.Sprintf("tape %s: %d HAR entries skipped (first: log.entries[%d]): %s", path, skips.count[r], skips.first[r], r))
	}
	if hdr != nil {
		h = *hdr
		h.Format, h.Version = FormatName, FormatVersion
	} else {
		h = Header{Format: FormatName, Version: FormatVersion, ProtocolVersion: version, Transport: "streamable-http",
			Tags: map[string]string{"imported_from": "har"}}
		if hasBase {
			h.CreatedAt = base.Add(time.Duration(shift) * time.Microsecond).UTC().Format(time.RFC3339Nano)
		}
		if endpoint != "" {
			h.Server = &Server{URL: endpoint}
		}
		if creator != "" {
			h.Tags["har_creator"] = creator
		}
	}
	return h, out, warnings, nil
}

// checkJSON reports a document that is not valid JSON, naming where.
func checkJSON(d *vcrDoc, what string) error {
	var raw json.RawMessage
	err := json.Unmarshal(d.doc, &raw)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if int(se.Offset) >= len(bytes.TrimRight(d.doc, " \t\r\n")) || strings.Contains(se.Error(), "unexpected end") {
			return d.errf(len(d.doc)-1, "the %s is cut short (torn) at its end (line %d): export it again, and let the export finish", what, d.lineAt(len(d.doc)-1))
		}
		return d.errf(int(max(se.Offset-1, 0)), "the %s is not valid JSON (%v): fix the file or export it again", what, se)
	}
	return d.errf(0, "the %s is not valid JSON (%v): fix the file or export it again", what, err)
}

// harItem is an entry as decoded, with where it starts.
type harItem struct {
	harEntry
	at   time.Time
	line int64
	tail bool // its event stream was cut in an event
}

// harEntries decodes log.entries, each entry on its own so that an error
// names it and its line.
func harEntries(d *vcrDoc) (items []harItem, creator string, hdr *Header, err error) {
	start := 0
	for start < len(d.doc) && (d.doc[start] == ' ' || d.doc[start] == '\t' || d.doc[start] == '\r' || d.doc[start] == '\n') {
		start++
	}
	root := span{start, start + len(bytes.TrimSpace(d.doc[start:]))}
	top, err := d.object(root, "the document")
	if err != nil {
		return nil, "", nil, err
	}
	lv := top["log"]
	if !lv.ok() {
		e := d.errf(root.start, `a JSON document without "log": this is not a HAR file`)
		e.Err = ErrUnknownFormat
		return nil, "", nil, e
	}
	lg, err := d.object(lv, "log")
	if err != nil {
		return nil, "", nil, err
	}
	if c := lg["creator"]; c.ok() && d.doc[c.start] == '{' {
		var hc harCreator
		if json.Unmarshal(d.doc[c.start:c.end], &hc) == nil {
			creator = strings.TrimSpace(hc.Name + " " + hc.Version)
		}
	}
	if x := lg["_replayctl"]; x.ok() && d.doc[x.start] == '{' {
		var hh harHeader
		if err := json.Unmarshal(d.doc[x.start:x.end], &hh); err != nil {
			return nil, "", nil, d.errf(x.start, "log._replayctl is not a tape header (%v): remove it or export the tape again", err)
		}
		for k, v := range hh.Unknown {
			if !json.Valid([]byte(v)) {
				return nil, "", nil, d.errf(x.start, "log._replayctl._unknown[%q] is not JSON text: remove it or export the tape again", k)
			}
			if hh.Header.Extra == nil {
				hh.Header.Extra = map[string]json.RawMessage{}
			}
			hh.Header.Extra[k] = json.RawMessage(v)
		}
		hdr = &hh.Header
	}
	ev := lg["entries"]
	if !ev.ok() {
		return nil, "", nil, d.errf(lv.start, `log has no "entries": this HAR file is not complete; export it again`)
	}
	spans, err := d.array(ev, "log.entries")
	if err != nil {
		return nil, "", nil, err
	}
	for i, sp := range spans {
		p := fmt.Sprintf("log.entries[%d]", i)
		var it harItem
		it.line = d.lineAt(sp.start)
		if err := json.Unmarshal(d.doc[sp.start:sp.end], &it.harEntry); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return nil, "", nil, d.errf(sp.start+int(te.Offset)-1, "%s.%s is %s, want %s: fix the file", p, te.Field, te.Value, te.Type)
			}
			return nil, "", nil, d.errf(sp.start, "%s is not a HAR entry (%v): fix the file", p, err)
		}
		if it.StartedDateTime == "" {
			return nil, "", nil, d.errf(sp.start, "%s has no startedDateTime: every HAR entry needs one; fix the file", p)
		}
		at, ok := parseISO(it.StartedDateTime)
		if !ok {
			return nil, "", nil, d.errf(sp.start, "%s.startedDateTime %q is not an ISO 8601 time like 2026-02-08T10:30:00.000Z: fix it", p, it.StartedDateTime)
		}
		it.at = at
		if it.Request.Method == "" || it.Request.URL == "" {
			return nil, "", nil, d.errf(sp.start, "%s.request has no method or url: fix the file", p)
		}
		items = append(items, it)
	}
	return items, creator, hdr, nil
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
