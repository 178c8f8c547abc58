package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
)

// StdioURL is the placeholder URL of the entries EncodeHAR writes for a
// tape recorded over stdio, which had no HTTP: each client message shows
// as a POST to it. The .invalid domain never resolves.
const StdioURL = "http://stdio.invalid/mcp"

// EncodeHAR writes the tape r, from its first message, as a HAR 1.2 file
// for a browser's network panel: one entry per HTTP exchange rebuilt
// from the tape (see grouper). Each client message is a POST with
// the message as its body and the request headers its HTTP metadata kept
// (Content-Type and Accept as a client sends them when none were kept),
// answered by the server messages that belong to it: the responses with
// its ids (an error with a null id answers the oldest POST still waiting
// for an answer) and the server's notifications and requests that came
// while its event stream was open. One answer recorded as an
// application/json body is an application/json body; otherwise a
// text/event-stream body with each event's recorded id, event and retry.
// Server messages that came while no such stream was open go to one GET
// stream entry per session. The status is the one recorded with the
// answer (or the client message), else 200, or 202 for a POST with no
// answer. A stdio tape's entries go to StdioURL.
//
// The tape's header, each entry's session name, and its messages' seqs,
// exact times and the rest of their lines (http, sse and unknown members)
// go into "_replayctl" members, which HAR viewers ignore and DecodeHAR
// uses, so that a tape exported and imported again is the same file, line
// for line.
//
// It streams: a first pass over the tape puts each message into a spill
// file (see msgStore) and keeps what grouping needs (see grouper); a
// second writes the entries one by one, each read back from the spill
// file. Memory grows with the number of messages (a few dozen bytes each),
// not with their size. r is left at its end. Errors are r's
// (*Error) or w's.
func EncodeHAR(w io.Writer, r *Reader, creator string) error {
	if err := r.Rewind(); err != nil {
		return err
	}
	h := r.Header()
	start, _ := parseISO(h.CreatedAt)
	if start.IsZero() {
		start = time.Unix(0, 0).UTC()
	}
	url := StdioURL
	if h.Server != nil && h.Server.URL != "" {
		url = MaskURL(h.Server.URL)
	}
	store, g, err := spillAndGroup(r)
	if err != nil {
		return err
	}
	defer store.close()
	exs := g.exchanges()
	head, tail, err := harFrame(harRoot{Log: harLog{Version: "1.2", Creator: harCreator{Name: "replayctl", Version: creator}, Replayctl: exportHeader(h),
		Entries: []harEntry{}}})
	if err != nil {
		return fmt.Errorf("write HAR: %w", err)
	}
	if _, err := w.Write(head); err != nil {
		return fmt.Errorf("write HAR: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(harEntryIndent, "  ")
	enc.SetEscapeHTML(false)
	for k, ex := range exs {
		full, err := g.load(ex, store)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		buf.Reset()
		if k > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n" + harEntryIndent)
		if err := enc.Encode(full.entry(start, url)); err != nil {
			return fmt.Errorf("write HAR: %w", err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		if _, err := w.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("write HAR: %w", err)
		}
	}
	if len(exs) > 0 {
		tail = append([]byte("\n    ]"), tail...)
	} else {
		tail = append([]byte("]"), tail...)
	}
	if _, err := w.Write(tail); err != nil {
		return fmt.Errorf("write HAR: %w", err)
	}
	return nil
}

// harEntryIndent is the indent of log.entries' elements.
const harEntryIndent = "      "

// harFrame returns the document doc, which has no entries, as
// json.Encoder writes it indented by two spaces, cut where its entries go:
// head ends with `"entries": [`, tail starts after the `]`.
func harFrame(doc harRoot) (head, tail []byte, err error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, nil, err
	}
	const empty = `"entries": []`
	k := bytes.LastIndex(b.Bytes(), []byte(empty))
	if k < 0 {
		return nil, nil, fmt.Errorf("no entries in %q", b.Bytes())
	}
	return b.Bytes()[:k+len(empty)-1], b.Bytes()[k+len(empty):], nil
}

// load reads the messages of ex back from the store.
func (g *grouper) load(ex *exGroup, store msgStore) (*harExport, error) {
	full := &harExport{session: g.names[ex.session], get: ex.get, answers: make([]Message, 0, len(ex.answers))}
	if !ex.get {
		m, err := store.get(int(ex.req))
		if err != nil {
			return nil, err
		}
		full.req = m
	}
	for _, i := range ex.answers {
		m, err := store.get(int(i))
		if err != nil {
			return nil, err
		}
		full.answers = append(full.answers, m)
	}
	return full, nil
}

func (ex *harExport) entry(start time.Time, url string) harEntry {
	t0 := ex.req.TUS
	if ex.get {
		t0 = ex.answers[0].TUS
	}
	e := harEntry{StartedDateTime: start.Add(time.Duration(t0) * time.Microsecond).Format("2006-01-02T15:04:05.000000Z07:00")}
	x := &harExtra{Session: ex.session}
	e.Request = harRequest{Method: "POST", URL: url, HTTPVersion: "HTTP/1.1", Cookies: []harNV{}, QueryString: []harNV{},
		Headers: []harNV{}, HeadersSize: -1, BodySize: 0}
	status := 200
	if ex.get {
		e.Request.Method = "GET"
		e.Request.Headers = append(e.Request.Headers, harNV{"Accept", "text/event-stream"})
	} else {
		for _, d := range []harNV{{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}} {
			if ex.req.HTTP == nil || !hasHeader(ex.req.HTTP.Headers, d.Name) {
				e.Request.Headers = append(e.Request.Headers, d)
			}
		}
		e.Request.Headers = appendMeta(e.Request.Headers, ex.req.HTTP)
		x.Meta = append(x.Meta, metaOf(ex.req))
		e.Request.PostData = &harPostData{MimeType: "application/json", Text: string(ex.req.Msg)}
		e.Request.BodySize = int64(len(ex.req.Msg))
		x.TUS, x.Seq = append(x.TUS, ex.req.TUS), append(x.Seq, ex.req.Seq)
		if ex.req.HTTP != nil && ex.req.HTTP.Status != 0 {
			status = ex.req.HTTP.Status
		} else if len(ex.answers) == 0 {
			status = 202
		}
	}
	resp := harResponse{HTTPVersion: "HTTP/1.1", Cookies: []harNV{}, Headers: []harNV{}, HeadersSize: -1}
	var body []byte
	mime := ""
	sse := len(ex.answers) > 1 || ex.get
	for _, a := range ex.answers {
		sse = sse || a.SSE != nil
	}
	last := t0
	for i, a := range ex.answers {
		if i == 0 {
			if a.HTTP != nil && a.HTTP.Status != 0 {
				status = a.HTTP.Status
			}
			resp.Headers = appendMeta(resp.Headers, a.HTTP, "Content-Type")
		}
		if sse {
			var id, event string
			var retry int64
			if a.SSE != nil {
				id, event, retry = a.SSE.ID, a.SSE.Event, a.SSE.Retry
			}
			body = appendSSE(body, id, event, retry, a.Msg)
		} else {
			body = append(body, a.Msg...)
		}
		x.TUS, x.Seq = append(x.TUS, a.TUS), append(x.Seq, a.Seq)
		x.Meta = append(x.Meta, metaOf(a))
		last = max(last, a.TUS)
	}
	if len(ex.answers) > 0 {
		mime = "application/json"
		if sse {
			mime = "text/event-stream"
		}
		resp.Headers = append([]harNV{{"Content-Type", mime}}, resp.Headers...)
	}
	resp.Status, resp.StatusText = status, http.StatusText(status)
	resp.Content = harContent{Size: int64(len(body)), MimeType: mime, Text: string(body)}
	resp.BodySize = int64(len(body))
	e.Response = resp
	wait := 0.0
	if len(ex.answers) > 0 {
		wait = float64(ex.answers[0].TUS-t0) / 1000
	}
	total := float64(last-t0) / 1000
	e.Time = total
	e.Timings = harTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: wait, Receive: total - wait}
	e.Replayctl = x
	return e
}

// appendMeta appends the headers a message's HTTP metadata kept, but for
// those already written (skip) and credentials.
func appendMeta(h []harNV, meta *HTTPMeta, skip ...string) []harNV {
	if meta == nil {
		return h
	}
	keys := make([]string, 0, len(meta.Headers))
	for k := range meta.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
next:
	for _, k := range keys {
		if Sensitive(k) {
			continue
		}
		for _, s := range skip {
			if equalFold(k, s) {
				continue next
			}
		}
		for _, v := range meta.Headers[k] {
			h = append(h, harNV{k, v})
		}
	}
	return h
}

// requestIDs are the id keys of the requests in a message (or batch).
func requestIDs(msg []byte) []string {
	return idsOf(msg, func(k jsonrpc.Kind) bool { return k == jsonrpc.KindRequest })
}

// responseIDs are the id keys of the responses in a message (or batch).
func responseIDs(msg []byte) []string {
	return idsOf(msg, jsonrpc.IsResponseKind)
}

func idsOf(msg []byte, want func(jsonrpc.Kind) bool) []string {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return nil
	}
	parts := []jsonrpc.Message{m}
	if m.Kind == jsonrpc.KindBatch {
		if parts, err = m.Batch(); err != nil {
			return nil
		}
	}
	var out []string
	for _, p := range parts {
		if want(p.Kind) {
			out = append(out, jsonrpc.IDKey(p.ID))
		}
	}
	return out
}

func hasHeader(h map[string][]string, name string) bool {
	for k := range h {
		if equalFold(k, name) {
			return true
		}
	}
	return false
}

// metaOf is what a message line has besides its seq, time, session,
// direction and body, for the importer to write it again as it was: but
// for its credentials (MaskHTTP, Mask), which no HAR holds.
func metaOf(m Message) harMeta {
	x := harMeta{HTTP: MaskHTTP(m.HTTP), SSE: m.SSE}
	for k, v := range m.Extra {
		if x.Extra == nil {
			x.Extra = make(map[string]string, len(m.Extra))
		}
		x.Extra[k] = string(MaskMember(k, v))
	}
	return x
}

// exportHeader is the tape's header as the HAR carries it: its members
// not known to this version as JSON text, so that they come back byte
// for byte; its secrets masked (MaskHeader, MaskMember).
func exportHeader(h Header) *harHeader {
	x := &harHeader{Header: MaskHeader(h)}
	for k, v := range h.Extra {
		if x.Unknown == nil {
			x.Unknown = make(map[string]string, len(h.Extra))
		}
		x.Unknown[k] = string(MaskMember(k, v))
	}
	return x
}
