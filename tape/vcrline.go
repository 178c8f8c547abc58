package tape

import (
	"bytes"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// maxLineInMemory is the longest cassette on one line whose messages an
// import keeps in memory rather than in a spill file: the line is in
// memory already, and its messages take about as much again.
const maxLineInMemory = 64 << 20

// decodeVCRLine imports a cassette held whole in doc, a valid JSON
// document on one line (oneLineDoc), into store: what decodeVCRStream
// does with it, without encoding/json's Decoder, in one pass over doc's
// bytes (jsonscan) but for each interaction's own members. Every error
// is on doc's one line, so the errors are decodeVCRStream's word for
// word (TestDecodeVCRLineAgrees, FuzzDecodeVCRLine).
func decodeVCRLine(path string, doc []byte, lineBase int64, store msgStore) (Header, *imported, error) {
	d := &vcrDoc{path: path, doc: doc, lineBase: lineBase, valid: true}
	s := &jsonStream{path: path, lc: &lineCounter{base: lineBase}}
	x := &vcrImport{s: s, store: store, rootLine: lineBase + 1, keepRPC: keepsRPC(store)}
	at := jsonscan.SkipSpace(doc, 0)
	if doc[at] != '{' {
		return Header{}, nil, d.errf(at, "the document is %s, want an object: fix the file", kindOf(doc[at:]))
	}
	_, err := d.walkObject(at, func(key string, at int) (int, error) {
		switch key {
		case "format_version":
			v, err := d.valueAt(at)
			x.fv = &vcrValue{d, v}
			return v.end, err
		case "metadata":
			v, err := d.valueAt(at)
			x.meta = &vcrValue{d, v}
			return v.end, err
		case "session":
			x.hasSession = true
			return x.sessionAt(d, at)
		}
		return -1, nil
	})
	if err != nil {
		return Header{}, nil, err
	}
	return x.finish()
}

// oneLineDoc reports whether the document that starts with first can be
// imported from first alone by decodeVCRLine: first is valid JSON and
// nothing but white space follows it in the file (rest, read ahead;
// last says first ends the file).
func oneLineDoc(first []byte, last bool, rest []byte) bool {
	return nothingAfter(last, rest) && bytes.IndexByte(first, '\n') < 0 && jsonscan.Valid(first)
}

// nothingAfter reports whether only white space follows a line in the
// file: it is the last (last), or the rest, read ahead, is blank and
// shorter than the 4 KiB read ahead.
func nothingAfter(last bool, rest []byte) bool {
	return last || len(rest) < 4096 && len(bytes.TrimLeft(rest, " \t\r\n")) == 0
}

// sessionAt is vcrImport.session for the value at doc[at]; it returns
// where the value ends.
func (x *vcrImport) sessionAt(d *vcrDoc, at int) (int, error) {
	x.sessErr, x.initReq, x.initResp, x.interErr, x.inters = nil, nil, nil, nil, nil
	if d.doc[at] != '{' {
		v, err := d.valueAt(at)
		x.sessErr = d.errf(at, "session is %s, want an object: fix the file", kindOf(d.doc[v.start:v.end]))
		return v.end, err
	}
	return d.walkObject(at, func(key string, at int) (int, error) {
		switch key {
		case "initialize_request":
			v, err := d.valueAt(at)
			x.initReq = &vcrValue{d, v}
			return v.end, err
		case "initialize_response":
			v, err := d.valueAt(at)
			x.initResp = &vcrValue{d, v}
			return v.end, err
		case "interactions":
			return x.interactionsAt(d, at)
		}
		return -1, nil
	})
}

// interactionsAt is vcrImport.interactions for the value at doc[at]; it
// returns where the value ends.
func (x *vcrImport) interactionsAt(d *vcrDoc, at int) (int, error) {
	x.interErr, x.inters = nil, nil
	if d.doc[at] != '[' {
		v, err := d.valueAt(at)
		if d.doc[at] != 'n' { // null: none
			x.interErr = d.errf(at, "session.interactions is %s, want an array: fix the file", kindOf(d.doc[v.start:v.end]))
		}
		return v.end, err
	}
	b := d.doc
	i := jsonscan.SkipSpace(b, at+1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		end, err := x.interactionAt(d, i, n)
		if err != nil {
			return i, err
		}
		i = jsonscan.SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsonscan.SkipSpace(b, i+1)
		}
	}
	if i >= len(b) { // the document is valid JSON: this does not happen
		return i, d.errf(at, "session.interactions is not a valid array: fix the file")
	}
	return i + 1, nil
}

// interactionAt decodes and keeps interaction n, at doc[at], unless an
// earlier one was wrong; it returns where it ends.
func (x *vcrImport) interactionAt(d *vcrDoc, at, n int) (int, error) {
	if x.interErr != nil { // the first error counts
		v, err := d.valueAt(at)
		return v.end, err
	}
	var item span
	var in vcrInteraction
	var err error
	if d.doc[at] == '{' {
		var o vcrMembers
		item.start = at
		item.end, err = d.walkObject(at, func(key string, at int) (int, error) {
			v, err := d.valueAt(at)
			o.set(key, v)
			return v.end, err
		})
		if err != nil {
			return item.end, err
		}
		in, err = d.interactionOf(item, &o, interPath(n))
	} else {
		if item, err = d.valueAt(at); err != nil {
			return item.end, err
		}
		in, err = d.interaction(item, n)
	}
	if err != nil {
		x.interErr = err
		return item.end, nil
	}
	return item.end, x.keep(in)
}

// valueAt is the span of the value at doc[at].
func (d *vcrDoc) valueAt(at int) (span, error) {
	end, err := jsonscan.SkipValue(d.doc, at)
	if err != nil { // the document is valid JSON: this does not happen
		return span{at, at}, d.errf(at, "not valid JSON: fix the file")
	}
	return span{at, end}, nil
}

// walkObject calls fn for each member of the object at doc[at], in
// order, with its name decoded and the offset of its value; fn returns
// where the value ends, or -1 to have it skipped. It returns where the
// object ends, and stops at fn's first error. doc must be valid JSON.
func (d *vcrDoc) walkObject(at int, fn func(key string, at int) (int, error)) (int, error) {
	b := d.doc
	i := jsonscan.SkipSpace(b, at+1)
	for i < len(b) && b[i] == '"' {
		kend, err := jsonscan.SkipValue(b, i)
		if err != nil {
			break
		}
		raw := b[i+1 : kend-1]
		key := string(raw)
		if bytes.IndexByte(raw, '\\') >= 0 {
			var ok bool
			if key, ok = unescapeKey(raw); !ok {
				break
			}
		}
		i = jsonscan.SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			break
		}
		v := jsonscan.SkipSpace(b, i+1)
		end, err := fn(key, v)
		if err != nil {
			return end, err
		}
		if end < 0 {
			if end, err = jsonscan.SkipValue(b, v); err != nil {
				break
			}
		}
		i = jsonscan.SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsonscan.SkipSpace(b, i+1)
		}
	}
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	// The document is valid JSON: this does not happen.
	return i, d.errf(at, "not a valid object: fix the file")
}
