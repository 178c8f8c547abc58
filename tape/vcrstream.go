package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// vcrImport is an Agent VCR cassette being imported: it reads the
// document once, interaction by interaction, putting each message into
// store as it finds it, and keeps only what ordering, timing and
// directions need (a vcrSlim per interaction). The small members
// (format_version, metadata, the handshake) are kept whole, as documents
// of their own (see jsonStream.sub), and checked at the end in the order
// DecodeVCR has always checked them.
type vcrImport struct {
	s        *jsonStream
	store    msgStore
	stored   int // messages in store
	rootLine int64
	// keepRPC: the store keeps each message as it is given (memStore), so
	// its parse goes with it (Message.RPC): the replay's loader and the
	// mock then need not parse it again
	keepRPC bool

	fv, meta, initReq, initResp *vcrValue
	hasSession                  bool
	sessErr                     error // session is not an object
	interErr                    error // the first error in session.interactions
	inters                      []vcrSlim
}

// vcrValue is a member's value as a document of its own.
type vcrValue struct {
	d  *vcrDoc
	sp span
}

// vcrSlim is what the import keeps of an interaction once its messages
// are in the store: its notifications', then its request's, then its
// response's, from first on.
type vcrSlim struct {
	at     time.Time
	hasAt  bool
	zoned  bool
	label  Dir
	method string // of the request, "" if not a request (as requestMethod says)
	isInit bool
	latUS  int64
	first  int
	notes  int
	resp   bool
}

// decodeVCRStream imports the cassette read from src; lineBase is the
// number of lines before it. Errors are DecodeVCR's, in the same order:
// a syntax error first, then the first of format_version, metadata,
// session, the handshake and the interactions that is wrong.
func decodeVCRStream(path string, src io.Reader, lineBase int64, store msgStore) (Header, *imported, error) {
	s := newJSONStream(path, src, lineBase)
	s.what = ""
	x := &vcrImport{s: s, store: store, keepRPC: keepsRPC(store)}
	if err := x.read(); err != nil {
		return Header{}, nil, err
	}
	return x.finish()
}

func (x *vcrImport) value() (*vcrValue, error) {
	raw, off, err := x.s.value()
	if err != nil {
		return nil, err
	}
	d, sp := x.s.sub(raw, off)
	return &vcrValue{d, sp}, nil
}

// skipOpened reads past the rest of a value whose first token, t, has
// been read.
func (x *vcrImport) skipOpened(t any) error {
	if t != json.Delim('{') && t != json.Delim('[') {
		return nil
	}
	at := x.s.depth - 1
	for x.s.depth > at {
		if _, _, err := x.s.next(); err != nil {
			return err
		}
	}
	return nil
}

func (x *vcrImport) read() error {
	t, off, err := x.s.next()
	if err != nil {
		return err
	}
	x.rootLine = x.s.lc.lineAt(off)
	if t != json.Delim('{') {
		return x.s.fail(x.s.errf(off, "the document is %s, want an object: fix the file", kindOfToken(t)))
	}
	for x.s.dec.More() {
		k, _, err := x.s.next()
		if err != nil {
			return err
		}
		switch k {
		case "format_version":
			x.fv, err = x.value()
		case "metadata":
			x.meta, err = x.value()
		case "session":
			x.hasSession = true
			err = x.session()
		default:
			err = x.s.skip()
		}
		if err != nil {
			return err
		}
	}
	if _, _, err := x.s.next(); err != nil { // }
		return err
	}
	return x.s.end()
}

// session reads the session object; a later "session" replaces an
// earlier one, as the last member of a name counts.
func (x *vcrImport) session() error {
	x.sessErr, x.initReq, x.initResp, x.interErr, x.inters = nil, nil, nil, nil, nil
	t, off, err := x.s.next()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		x.sessErr = x.s.errf(off, "session is %s, want an object: fix the file", kindOfToken(t))
		return x.skipOpened(t)
	}
	for x.s.dec.More() {
		k, _, err := x.s.next()
		if err != nil {
			return err
		}
		switch k {
		case "initialize_request":
			x.initReq, err = x.value()
		case "initialize_response":
			x.initResp, err = x.value()
		case "interactions":
			err = x.interactions()
		default:
			err = x.s.skip()
		}
		if err != nil {
			return err
		}
	}
	_, _, err = x.s.next() // }
	return err
}

// interactions reads session.interactions one by one.
func (x *vcrImport) interactions() error {
	x.interErr, x.inters = nil, nil
	t, off, err := x.s.next()
	if err != nil || t == nil { // null: none
		return err
	}
	if t != json.Delim('[') {
		x.interErr = x.s.errf(off, "session.interactions is %s, want an array: fix the file", kindOfToken(t))
		return x.skipOpened(t)
	}
	for i := 0; x.s.dec.More(); i++ {
		raw, off, err := x.s.value()
		if err != nil {
			return err
		}
		if x.interErr != nil {
			continue // the first error counts: read on for a syntax error
		}
		x.s.lc.forget(off)
		d, sp := x.s.sub(raw, off)
		in, err := d.interaction(sp, i)
		if err != nil {
			x.interErr = err
			continue
		}
		if err := x.keep(in); err != nil {
			return err
		}
	}
	_, _, err = x.s.next() // ]
	return err
}

// keep puts an interaction's messages into the store.
func (x *vcrImport) keep(in vcrInteraction) error {
	sl := vcrSlim{at: in.at, hasAt: in.hasAt, zoned: in.zoned, label: in.label,
		latUS: in.latUS, first: x.stored, notes: len(in.notes), resp: in.resp != nil}
	for _, n := range in.notes {
		if _, err := x.add(n, false); err != nil {
			return err
		}
	}
	rpc, err := x.add(in.req, true)
	if err != nil {
		return err
	}
	sl.isInit = isInitialized(rpc, in.req.msg)
	if rpc.Kind == jsonrpc.KindRequest {
		sl.method = rpc.Method // a constant or a string of its own: it keeps no message alive
	}
	if in.resp != nil {
		if _, err := x.add(*in.resp, false); err != nil {
			return err
		}
	}
	x.inters = append(x.inters, sl)
	return nil
}

// add puts a message into the store; its direction, session and time
// are decided at the end. With keepRPC its parse goes into the store with
// it; with need (or keepRPC) add returns the parse (KindInvalid for a
// message that is not JSON-RPC).
func (x *vcrImport) add(m vcrMsg, need bool) (jsonrpc.Message, error) {
	var rpc jsonrpc.Message
	if need || x.keepRPC {
		var err error
		if rpc, err = jsonrpc.Parse(m.msg); err != nil {
			rpc = jsonrpc.Message{Kind: jsonrpc.KindInvalid}
		}
	}
	msg := Message{Dir: C2S, Msg: m.msg, Line: m.line}
	if x.keepRPC {
		msg.rpc = jsonrpc.Keep(rpc)
	}
	if err := x.store.add(msg); err != nil {
		return rpc, &Error{Path: x.s.path, Line: m.line, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot keep the message (%v)", err)}
	}
	x.stored++
	return rpc, nil
}

// keepsRPC reports whether store keeps each message as it is given, its
// parse with it (a spill file keeps the bytes).
func keepsRPC(store msgStore) bool {
	_, ok := store.(*memStore)
	return ok
}

// finish checks what the cassette says in the order DecodeVCR has always
// checked it, then orders and times the messages.
func (x *vcrImport) finish() (Header, *imported, error) {
	var h Header
	if x.fv == nil || !x.hasSession {
		return h, nil, &Error{Path: x.s.path, Line: x.rootLine, Seq: -1, Err: ErrUnknownFormat,
			Msg: `a JSON document without "format_version" and "session": this is neither an Agent VCR cassette nor a replayctl tape`}
	}
	version, err := x.fv.d.str(x.fv.sp, "format_version")
	if err != nil {
		return h, nil, err
	}
	if err := checkVCRVersion(x.fv.d, x.fv.sp, version); err != nil {
		return h, nil, err
	}
	h = Header{Format: FormatName, Version: FormatVersion}
	meta := x.meta
	if meta == nil {
		meta = &vcrValue{d: &vcrDoc{path: x.s.path}}
	}
	session, recordedAt, hasRecordedAt, err := meta.d.metadata(meta.sp, &h)
	if err != nil {
		return h, nil, err
	}
	if x.sessErr != nil {
		return h, nil, x.sessErr
	}
	initReq, err := x.initReq.rpc("session.initialize_request")
	if err != nil {
		return h, nil, err
	}
	initResp, err := x.initResp.rpc("session.initialize_response")
	if err != nil {
		return h, nil, err
	}
	h.ProtocolVersion = protocolVersion(initReq, initResp)
	if x.interErr != nil {
		return h, nil, x.interErr
	}

	// Times are relative to the earliest one in the file.
	var base time.Time
	hasBase, hasInit := false, false
	if hasRecordedAt {
		base, hasBase = recordedAt, true
	}
	for i, in := range x.inters {
		if in.hasAt && !in.zoned && hasRecordedAt && recordedAt.Location() != time.UTC {
			// On recorded_at's clock (a zone-less one is UTC already).
			in.at = inZoneOf(in.at, recordedAt)
			x.inters[i].at = in.at
		}
		if in.hasAt && (!hasBase || in.at.Before(base)) {
			base, hasBase = in.at, true
		}
		hasInit = hasInit || in.isInit
	}
	refs := make([]importRef, 0, x.stored+3) // and the handshake's three
	var now int64
	add := func(i int, dir Dir, at int64) {
		now = max(now, at)
		refs = append(refs, importRef{i: int32(i), seq: int64(len(refs)), tus: now, dir: codeOf(dir)})
	}
	handshake := func(m *vcrMsg) (int, error) {
		i := x.stored
		_, err := x.add(*m, false)
		return i, err
	}
	var initAt int64
	if hasRecordedAt {
		initAt = recordedAt.Sub(base).Microseconds()
	}
	if initReq != nil {
		i, err := handshake(initReq)
		if err != nil {
			return h, nil, err
		}
		add(i, C2S, initAt)
	}
	if initResp != nil {
		i, err := handshake(initResp)
		if err != nil {
			return h, nil, err
		}
		add(i, S2C, initAt)
		if !hasInit {
			i, err := handshake(&vcrMsg{msg: bytes.Clone(initializedMsg), line: initResp.line})
			if err != nil {
				return h, nil, err
			}
			add(i, C2S, initAt)
		}
	}
	bySender := vcrBySender(x.inters)
	for _, in := range x.inters {
		at := now
		if in.hasAt {
			at = in.at.Sub(base).Microseconds()
		}
		for j := range in.notes {
			add(in.first+j, S2C, at)
		}
		dir := in.sender(bySender)
		add(in.first+in.notes, dir, at)
		if in.resp {
			add(in.first+in.notes+1, opposite(dir), at+in.latUS)
		}
	}
	return h, &imported{store: x.store, refs: refs, session: session}, nil
}

// rpc is vcrDoc.optRPC for a member that may be absent (nil).
func (v *vcrValue) rpc(path string) (*vcrMsg, error) {
	if v == nil {
		return nil, nil
	}
	return v.d.optRPC(v.sp, path)
}

// vcrBySender and sender decide who sent an interaction's request (see
// senders): the directions name senders unless a request only clients
// send is marked "server_to_client".
func vcrBySender(inters []vcrSlim) bool {
	for _, in := range inters {
		if in.method != "" && !mcp.ServerInitiated(in.method) && in.label == S2C {
			return false
		}
	}
	return true
}

func (in vcrSlim) sender(bySender bool) Dir {
	switch m := in.method; {
	case m == "":
		return in.label // a notification, or not JSON-RPC
	case m == mcp.MethodPing && bySender:
		return in.label
	case mcp.ServerInitiated(m) && m != mcp.MethodPing:
		return S2C
	}
	return C2S
}
