package tapediff

import (
	"encoding/json"
	"strings"

	"github.com/replayctl/replayctl/internal/jsonpath"
	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/validator"
)

// compareAnswers reports what changed between the answers of two paired
// requests: success turned into an error (a JSON-RPC error, or a tool
// result with isError true) or the reverse, an answer gone or new, and,
// for the methods whose answers are not definitions (see isCatalog),
// each difference the validator finds in the result or the error, after
// its normalisers. The params of requests paired by method and name only
// are compared too.
func (d *differ) compareAnswers(p pair) {
	a, b := p.a, p.b
	at := Change{Method: a.method, Name: a.name, Session: a.session, SeqA: a.ansSeq, SeqB: b.ansSeq}
	if a.canon != b.canon {
		for _, diff := range d.values("params", "", withoutVolatile(a.params), withoutVolatile(b.params)) {
			c := at
			c.Kind, c.Path, c.A, c.B, c.Detail = RequestChanged, diff.Path, diff.Expected, diff.Actual, string(diff.Kind)
			c.SeqA, c.SeqB = a.seq, b.seq
			d.add(c)
		}
	}
	switch {
	case a.answer == nil && b.answer == nil:
		return
	case b.answer == nil:
		c := at
		c.Kind, c.Detail = AnswerMissing, "tape B has no answer to this request"
		c.A = member(a.answer)
		d.add(c)
		return
	case a.answer == nil:
		c := at
		c.Kind, c.Detail = AnswerAdded, "tape A has no answer to this request"
		c.B = member(b.answer)
		d.add(c)
		return
	}
	okA, okB := succeeded(a.answer), succeeded(b.answer)
	switch {
	case okA && !okB:
		c := at
		c.Kind, c.Detail, c.A, c.B = SuccessToError, failure(b.answer), member(a.answer), member(b.answer)
		d.add(c)
		return
	case !okA && okB:
		c := at
		c.Kind, c.Detail, c.A, c.B = ErrorToSuccess, failure(a.answer), member(a.answer), member(b.answer)
		d.add(c)
		return
	}
	if isCatalog(a.method) && okA {
		return // compared as definitions
	}
	kind, ma, mb := AnswerChanged, a.answer.Result(), b.answer.Result()
	path := "result"
	if a.answer.Kind == jsonrpc.KindError || b.answer.Kind == jsonrpc.KindError {
		kind, path = ErrorChanged, "error"
		ma, mb = a.answer.Error(), b.answer.Error()
		if a.answer.Kind != b.answer.Kind { // a JSON-RPC error and an isError result
			c := at
			c.Kind, c.Path, c.A, c.B = ErrorChanged, "", member(a.answer), member(b.answer)
			c.Detail = failure(a.answer) + " → " + failure(b.answer)
			d.add(c)
			return
		}
	}
	for _, diff := range d.values(path, "", ma, mb) {
		c := at
		c.Kind, c.Path, c.A, c.B, c.Detail = kind, diff.Path, diff.Expected, diff.Actual, string(diff.Kind)
		d.add(c)
	}
}

// succeeded reports whether an answer is a result and, for a tool call,
// not one with isError true.
func succeeded(m *jsonrpc.Message) bool {
	if m.Kind != jsonrpc.KindResponse {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(m.Result(), &r)
	return !r.IsError
}

// member is an answer's result or error member.
func member(m *jsonrpc.Message) json.RawMessage {
	if m.Kind == jsonrpc.KindError {
		return m.Error()
	}
	return m.Result()
}

// failure says in words how an answer failed.
func failure(m *jsonrpc.Message) string {
	if m.Kind == jsonrpc.KindError {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(m.Error(), &e)
		return "JSON-RPC error " + itoa(e.Code) + ": " + e.Message
	}
	return "tool result with isError true"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// withoutVolatile is params without the members that differ between runs.
func withoutVolatile(params []byte) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return params
	}
	for _, k := range VolatileParams {
		delete(obj, k)
	}
	b, _ := json.Marshal(obj)
	return b
}

// values compares two JSON values with the validator: its normalisers,
// ignored paths and tolerance. The values are compared as the member at
// prefix of a message (prefix "result": as the result of an answer;
// "result.tools[0]": as a tool in a tools/list answer), so that ignore
// patterns written for answers apply; the paths returned are the
// validator's (result.content[0].text), with strip taken off their
// start. Values that are not JSON differ as a whole, at prefix.
func (d *differ) values(prefix, strip string, a, b []byte) []validator.Difference {
	if len(a) == 0 {
		a = []byte("null")
	}
	if len(b) == 0 {
		b = []byte("null")
	}
	diffs, err := d.v.Compare(wrap(prefix, a), wrap(prefix, b))
	if err != nil {
		if string(a) == string(b) {
			return nil
		}
		return []validator.Difference{{Path: prefix, Expected: a, Actual: b, Kind: validator.DiffChanged}}
	}
	for i := range diffs {
		p := strings.TrimPrefix(diffs[i].Path, strip)
		diffs[i].Path = strings.TrimPrefix(p, ".")
	}
	return diffs
}

// wrap puts v at path inside a JSON object: "result.tools[0]" gives
// {"result":{"tools":[v]}}; an index n puts n nulls before v. path is
// written in code (a constant prefix), in the one path language.
func wrap(path string, v []byte) []byte {
	steps, err := jsonpath.ParsePath(path)
	if err != nil {
		panic("tapediff: prefix " + err.Error())
	}
	var open, close []byte
	for _, s := range steps {
		if s.IsIndex {
			open = append(open, '[')
			for range s.Index {
				open = append(open, "null,"...)
			}
			close = append([]byte{']'}, close...)
			continue
		}
		open = append(jsonscan.AppendString(append(open, '{'), s.Key), ':')
		close = append([]byte{'}'}, close...)
	}
	return append(append(open, v...), close...)
}
