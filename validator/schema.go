package validator

import (
	"encoding/json"
	"strconv"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// jtype is a JSON type a schema asks for.
type jtype uint8

const (
	tAny jtype = iota
	tObject
	tArray
	tString
	tInteger
	tBool
)

// names are the Expected values of schema differences, as JSON strings.
var jtypeNames = [...]string{tAny: `"any value"`, tObject: `"object"`, tArray: `"array"`, tString: `"string"`, tInteger: `"integer"`, tBool: `"boolean"`}

// shape is what a value must look like: its type, its members (objects),
// at least one of some members (anyOf), and its elements (arrays).
type shape struct {
	t       jtype
	members []memberShape
	anyOf   []string
	elem    *shape
}

type memberShape struct {
	name     string
	optional bool
	s        shape
}

func obj(ms ...memberShape) shape       { return shape{t: tObject, members: ms} }
func arr(s shape) shape                 { return shape{t: tArray, elem: &s} }
func req(n string, s shape) memberShape { return memberShape{name: n, s: s} }
func opt(n string, s shape) memberShape { return memberShape{name: n, optional: true, s: s} }

var (
	str     = shape{t: tString}
	integer = shape{t: tInteger}
	boolean = shape{t: tBool}
)

// resultShapes are the results MCP requires for the core methods
// (protocol revisions 2025-06-18 to 2026-07-28). Members not listed are
// allowed: the cache hints of 2026-07-28 (ttlMs, cacheScope) and its
// resultType "complete" are checked as cacheHints says.
var resultShapes = map[string]shape{
	"initialize": obj(
		req("protocolVersion", str),
		req("capabilities", obj()),
		req("serverInfo", obj(req("name", str), req("version", str))),
	),
	"ping":       obj(),
	"tools/list": obj(req("tools", arr(obj(req("name", str), req("inputSchema", obj()))))),
	"tools/call": func() shape {
		s := obj(
			opt("content", arr(obj(req("type", str)))),
			opt("structuredContent", obj()),
			opt("isError", boolean),
		)
		s.anyOf = []string{"content", "structuredContent"}
		return s
	}(),
	"resources/list":           obj(req("resources", arr(obj(req("uri", str), req("name", str))))),
	"resources/templates/list": obj(req("resourceTemplates", arr(obj(req("uriTemplate", str), req("name", str))))),
	"resources/read":           obj(req("contents", arr(obj(req("uri", str))))),
	"resources/subscribe":      obj(),
	"resources/unsubscribe":    obj(),
	"prompts/list":             obj(req("prompts", arr(obj(req("name", str))))),
	"prompts/get":              obj(req("messages", arr(obj(req("role", str), req("content", obj()))))),
	"completion/complete":      obj(req("completion", obj(req("values", arr(str))))),
	"logging/setLevel":         obj(),
	"server/discover":          obj(req("supportedVersions", arr(str)), req("capabilities", obj())),
	"tasks/get":                obj(req("taskId", str), req("status", str)),
	"tasks/cancel":             obj(),
	"tasks/update":             obj(),
}

// byResultType are the shapes of the results of MCP 2026-07-28 that are
// not the method's final result: a multi-round request that needs input
// (inputRequests and/or requestState), and a task created for a tools/call.
var byResultType = map[string]shape{
	"input_required": func() shape {
		s := obj(opt("inputRequests", obj()), opt("requestState", str))
		s.anyOf = []string{"inputRequests", "requestState"}
		return s
	}(),
	"task": obj(req("taskId", str), req("status", str)),
}

// cacheHints are the members 2026-07-28 adds to results: the cache hints
// and the result type, optional on every result shape.
var cacheHints = []memberShape{opt("ttlMs", integer), opt("cacheScope", str), opt("resultType", str)}

func init() {
	for _, shapes := range []map[string]shape{resultShapes, byResultType} {
		for k, s := range shapes {
			s.members = append(s.members, cacheHints...)
			shapes[k] = s
		}
	}
}

// resultType is the result's resultType (MCP 2026-07-28), or "".
func resultType(result []byte) string {
	var rt string
	_ = jsonscan.Members(result, func(m jsonscan.Member) bool {
		if string(m.Key) == "resultType" {
			_ = json.Unmarshal(result[m.Start:m.End], &rt)
			return false
		}
		return true
	})
	return rt
}

var (
	errorShape   = obj(req("code", integer), req("message", str))
	messageShape = obj(req("jsonrpc", str))
)

// schema checks that a live message has the JSON-RPC shape and, for an
// answer to a known method, the result MCP requires.
func (w *walker) schema(method string, a []byte) {
	if jsonType(a) != '{' {
		w.add(DiffType, []byte(`"object"`), a)
		return
	}
	w.shape(messageShape, a)
	ms := members(a, false)
	get := func(name string) []byte {
		for _, m := range ms {
			if m.key == name {
				return m.val
			}
		}
		return nil
	}
	if v := get("jsonrpc"); v != nil && jsonType(v) == '"' && !stringsEqual(v, []byte(`"2.0"`)) {
		w.path = append(w.path, seg{Key: "jsonrpc"})
		w.add(DiffChanged, []byte(`"2.0"`), v)
		w.path = w.path[:0]
	}
	if m := get("method"); m != nil {
		w.shape(obj(req("method", str)), a) // a request or notification
		return
	}
	res, e := get("result"), get("error")
	switch {
	case res == nil && e == nil:
		w.add(DiffMissing, []byte(`"result or error"`), nil)
	case res != nil && e != nil:
		w.path = append(w.path, seg{Key: "error"})
		w.add(DiffAdded, []byte(`"result or error, not both"`), e)
		w.path = w.path[:0]
	case e != nil:
		w.path = append(w.path, seg{Key: "error"})
		w.shape(errorShape, e)
		w.path = w.path[:0]
	default:
		s, ok := byResultType[resultType(res)]
		if !ok {
			s, ok = resultShapes[method]
		}
		if !ok {
			return // any result: only the JSON-RPC shape
		}
		w.path = append(w.path, seg{Key: "result"})
		w.shape(s, res)
		w.path = w.path[:0]
	}
}

// shape checks the value v at the current path against s.
func (w *walker) shape(s shape, v []byte) {
	if w.ignored() {
		return
	}
	if !typeIs(s.t, v) {
		w.add(DiffType, []byte(jtypeNames[s.t]), v)
		return
	}
	switch s.t {
	case tObject:
		if len(s.members) == 0 && len(s.anyOf) == 0 {
			return
		}
		ms := members(v, false)
		find := func(name string) []byte {
			for _, m := range ms {
				if m.key == name {
					return m.val
				}
			}
			return nil
		}
		for _, m := range s.members {
			mv := find(m.name)
			w.path = append(w.path, seg{Key: m.name})
			switch {
			case mv != nil:
				w.shape(m.s, mv)
			case !m.optional && !w.ignored():
				w.add(DiffMissing, []byte(jtypeNames[m.s.t]), nil)
			}
			w.path = w.path[:len(w.path)-1]
		}
		if len(s.anyOf) > 0 && !w.ignored() {
			found := false
			for _, n := range s.anyOf {
				found = found || find(n) != nil
			}
			if !found {
				want := ""
				for i, n := range s.anyOf {
					if i > 0 {
						want += " or "
					}
					want += n
				}
				w.add(DiffMissing, []byte(strconv.Quote(want)), nil)
			}
		}
	case tArray:
		for k, e := range elements(v) {
			w.path = append(w.path, seg{Index: k, IsIndex: true})
			w.shape(*s.elem, e)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

func typeIs(t jtype, v []byte) bool {
	switch c := jsonType(v); t {
	case tObject:
		return c == '{'
	case tArray:
		return c == '['
	case tString:
		return c == '"'
	case tInteger:
		return c == '0' && isInteger(v)
	case tBool:
		return c == 't'
	}
	return true
}
