package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// What the importers of the other MCP recorders' files (mcp-cassette,
// mcp-recorder, mcp-vcr) share: a document streamed member by member
// with its list of messages read element by element, the messages kept
// in the file's order with their times, and what the file lacks said
// once each.

// peerImport collects an imported file's messages in the order found.
type peerImport struct {
	path  string
	store msgStore
	refs  []importRef
	notes harSkips // what the file lacks or what was left out, counted
}

// add keeps m at tus µs from the recording's start; times never go back
// (a message is never before the one found before it).
func (p *peerImport) add(m Message, tus int64) error {
	if n := len(p.refs); n > 0 {
		tus = max(tus, p.refs[n-1].tus)
	}
	i := len(p.refs)
	if err := p.store.add(m); err != nil {
		return &Error{Path: p.path, Line: m.Line, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot keep the message (%v)", err)}
	}
	p.refs = append(p.refs, importRef{i: int32(i), seq: int64(i), tus: max(tus, 0), dir: codeOf(m.Dir)})
	return nil
}

// note counts one occurrence of what is said once, at the place where
// (a JSON path) it was first seen.
func (p *peerImport) note(what string, where int) { p.notes.add(what, where) }

// warnings says each note once, with how often it applied and where
// first; list names the file's list of messages ("messages").
func (p *peerImport) warnings(list string) []string {
	var out []string
	for _, r := range p.notes.reasons {
		n := p.notes.count[r]
		if n == 1 {
			out = append(out, fmt.Sprintf("tape %s: %s[%d]: %s", p.path, list, p.notes.first[r], r))
			continue
		}
		out = append(out, fmt.Sprintf("tape %s: %d times (first: %s[%d]): %s", p.path, n, list, p.notes.first[r], r))
	}
	return out
}

func (p *peerImport) imported(session string) *imported {
	return &imported{store: p.store, refs: p.refs, session: session}
}

// streamObject reads a document whose root is an object: each member
// but list is given whole to member (they are small); the elements of
// the array list are given one by one to item, as the document streams
// past. An error of member or item stops the reading, unless the rest
// of the document is not valid JSON: then that error (the file is torn).
// It reports whether the document has a member named list.
func streamObject(s *jsonStream, list string, member func(key string, v *vcrValue) error, item func(i int, d *vcrDoc, sp span) error) (found bool, err error) {
	t, off, err := s.next()
	if err != nil {
		return false, err
	}
	if t != json.Delim('{') {
		return false, s.fail(s.errf(off, "the document is %s, want an object: fix the file", kindOfToken(t)))
	}
	for s.dec.More() {
		k, _, err := s.next()
		if err != nil {
			return found, err
		}
		key, _ := k.(string)
		if key != list {
			raw, off, err := s.value()
			if err != nil {
				return found, err
			}
			d, sp := s.sub(raw, off)
			if err := member(key, &vcrValue{d, sp}); err != nil {
				return found, s.fail(err)
			}
			continue
		}
		found = true
		t, off, err := s.next()
		if err != nil {
			return found, err
		}
		if t == nil { // null: no messages
			continue
		}
		if t != json.Delim('[') {
			return found, s.fail(s.errf(off, "%s is %s, want an array: fix the file", list, kindOfToken(t)))
		}
		for i := 0; s.dec.More(); i++ {
			raw, off, err := s.value()
			if err != nil {
				return found, err
			}
			s.lc.forget(off)
			d, sp := s.sub(raw, off)
			if err := item(i, d, sp); err != nil {
				return found, s.fail(err)
			}
		}
		if _, _, err := s.next(); err != nil { // ]
			return found, err
		}
	}
	if _, _, err := s.next(); err != nil { // }
		return found, err
	}
	return found, s.end()
}

// optNumber is number for a member that may be absent or null (ok false).
func (d *vcrDoc) optNumber(v span, path string) (f float64, ok bool, err error) {
	if !v.ok() || d.doc[v.start] == 'n' {
		return 0, false, nil
	}
	f, err = d.number(v, path)
	return f, err == nil, err
}

// millis reads a number of milliseconds ≥ 0 as µs.
func (d *vcrDoc) millis(v span, path string) (us int64, ok bool, err error) {
	ms, ok, err := d.optNumber(v, path)
	if err != nil || !ok {
		return 0, ok, err
	}
	if ms < 0 || ms > 1e12 || math.IsNaN(ms) {
		return 0, false, d.errf(v.start, "%s is %v, want a number of milliseconds ≥ 0: fix it", path, ms)
	}
	return int64(math.Round(ms * 1000)), true, nil
}

// optBool reads a boolean that may be absent or null (false).
func (d *vcrDoc) optBool(v span, path string) (bool, error) {
	if !v.ok() || d.doc[v.start] == 'n' {
		return false, nil
	}
	switch string(d.doc[v.start:v.end]) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, d.wrongType(v, path, "a boolean")
}

// message returns the JSON-RPC object at v made compact, its key order
// and every member kept (the peers store the message as it went).
func (d *vcrDoc) message(v span, path string) (vcrMsg, error) {
	b := d.doc[v.start:v.end]
	if b[0] != '{' {
		return vcrMsg{}, d.wrongType(v, path, "a JSON-RPC object")
	}
	var buf bytes.Buffer
	buf.Grow(len(b))
	if err := json.Compact(&buf, b); err != nil {
		return vcrMsg{}, d.errf(v.start, "%s is not valid JSON (%v): fix the file", path, err)
	}
	return vcrMsg{msg: buf.Bytes(), line: d.lineAt(v.start)}, nil
}

// headerServer reads a server_info object at v into h's server name and
// version, when it names either.
func (d *vcrDoc) headerServer(v span, path string, h *Header) error {
	var srv Server
	if err := d.serverInfo(v, path, &srv); err != nil {
		return err
	}
	if srv.Name != "" || srv.Version != "" {
		h.Server = serverOf(h.Server)
		h.Server.Name, h.Server.Version = srv.Name, srv.Version
	}
	return nil
}

// serverInfo reads {"name", "version"} into srv.
func (d *vcrDoc) serverInfo(v span, path string, srv *Server) error {
	if !v.ok() || d.doc[v.start] == 'n' {
		return nil
	}
	o, err := d.object(v, path)
	if err != nil {
		return err
	}
	if srv.Name, err = d.optStr(o["name"], path+".name"); err != nil {
		return err
	}
	srv.Version, err = d.optStr(o["version"], path+".version")
	return err
}

// peerHeader is the header of an imported file of another recorder.
func peerHeader(from string) Header {
	return Header{Format: FormatName, Version: FormatVersion, Tags: map[string]string{"imported_from": from}}
}
