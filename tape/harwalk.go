package tape

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Walking a HAR document with the JSON stream: the root, its "log", the
// log's creator and _replayctl header, and its entries one by one.

// read reads the document: its "log", skipping what else it holds.
func (x *harImport) read() error {
	t, off, err := x.s.next()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return x.s.fail(x.s.errf(off, "the document is %s, want an object: fix the file", kindOfToken(t)))
	}
	root, sawLog := off, false
	for x.s.dec.More() {
		k, _, err := x.s.next()
		if err != nil {
			return err
		}
		if k == "log" && !sawLog {
			sawLog = true
			if err := x.log(); err != nil {
				return err
			}
			continue
		}
		if err := x.s.skip(); err != nil {
			return err
		}
	}
	if _, _, err := x.s.next(); err != nil { // }
		return err
	}
	if err := x.s.end(); err != nil {
		return err
	}
	if !sawLog {
		e := x.s.errf(root, `a JSON document without "log": this is not a HAR file`)
		e.Err = ErrUnknownFormat
		return e
	}
	return nil
}

// log reads the "log" object: its creator and _replayctl header, and its
// entries one by one.
func (x *harImport) log() error {
	t, logOff, err := x.s.next()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return x.s.fail(x.s.errf(logOff, "log is %s, want an object: fix the file", kindOfToken(t)))
	}
	sawEntries := false
	for x.s.dec.More() {
		k, _, err := x.s.next()
		if err != nil {
			return err
		}
		switch k {
		case "creator", "_replayctl":
			v, off, err := x.s.value()
			if err != nil {
				return err
			}
			if k == "creator" {
				x.logCreator(v)
			} else if err := x.logHeader(v, off); err != nil {
				return x.s.fail(err)
			}
		case "entries":
			if sawEntries {
				return x.s.fail(x.s.errf(logOff, `log has "entries" twice: a HAR file has one list of entries; fix the file`))
			}
			sawEntries = true
			if err := x.entries(); err != nil {
				return err
			}
		default:
			if err := x.s.skip(); err != nil {
				return err
			}
		}
	}
	if _, _, err := x.s.next(); err != nil { // }
		return err
	}
	if !sawEntries {
		return x.s.fail(x.s.errf(logOff, `log has no "entries": this HAR file is not complete; export it again`))
	}
	return nil
}

func (x *harImport) logCreator(v []byte) {
	var hc harCreator
	if v[0] == '{' && json.Unmarshal(v, &hc) == nil {
		x.creator = strings.TrimSpace(hc.Name + " " + hc.Version)
	}
}

// logHeader reads the tape's header, as replayctl's exporter writes it.
func (x *harImport) logHeader(v []byte, off int64) error {
	if v[0] != '{' {
		return nil
	}
	var hh harHeader
	if err := json.Unmarshal(v, &hh); err != nil {
		return x.s.errf(off, "log._replayctl is not a tape header (%v): remove it or export the tape again", err)
	}
	for k, v := range hh.Unknown {
		if !json.Valid([]byte(v)) {
			return x.s.errf(off, "log._replayctl._unknown[%q] is not JSON text: remove it or export the tape again", k)
		}
		if hh.Header.Extra == nil {
			hh.Header.Extra = map[string]json.RawMessage{}
		}
		hh.Header.Extra[k] = json.RawMessage(v)
	}
	x.hdr = &hh.Header
	return nil
}

// entries reads log.entries, one entry at a time.
func (x *harImport) entries() error {
	t, off, err := x.s.next()
	if err != nil {
		return err
	}
	if t != json.Delim('[') {
		return x.s.fail(x.s.errf(off, "log.entries is %s, want an array: fix the file", kindOfToken(t)))
	}
	for i := 0; x.s.dec.More(); i++ {
		v, off, err := x.s.value()
		if err != nil {
			return err
		}
		x.s.lc.forget(off)
		it, err := x.item(v, off, i)
		if err != nil {
			return x.s.fail(err)
		}
		x.ats = append(x.ats, it.at)
		if !x.hasBase || it.at.Before(x.base) {
			x.base, x.hasBase = it.at, true
		}
		if it.Replayctl == nil || len(it.Replayctl.Seq) == 0 {
			x.exact = false
		}
		if x.later == nil {
			x.later = x.entry(&it, i)
		}
	}
	_, _, err = x.s.next() // ]
	return err
}

// item decodes entry i, which starts at off.
func (x *harImport) item(v []byte, off int64, i int) (harItem, error) {
	p := fmt.Sprintf("log.entries[%d]", i)
	var it harItem
	it.line = x.s.lc.lineAt(off)
	if err := json.Unmarshal(v, &it.harEntry); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return it, x.s.errf(off+te.Offset-1, "%s.%s is %s, want %s: fix the file", p, te.Field, te.Value, te.Type)
		}
		return it, x.s.errf(off, "%s is not a HAR entry (%v): fix the file", p, err)
	}
	if it.StartedDateTime == "" {
		return it, x.s.errf(off, "%s has no startedDateTime: every HAR entry needs one; fix the file", p)
	}
	at, ok := parseISO(it.StartedDateTime)
	if !ok {
		return it, x.s.errf(off, "%s.startedDateTime %q is not an ISO 8601 time like 2026-02-08T10:30:00.000Z: fix it", p, it.StartedDateTime)
	}
	it.at = at
	if it.Request.Method == "" || it.Request.URL == "" {
		return it, x.s.errf(off, "%s.request has no method or url: fix the file", p)
	}
	return it, nil
}
