package tapediff

import (
	"encoding/json"

	"github.com/replayctl/replayctl/jsonrpc"
)

// catalog is what a listing method lists, from every answer of it in a
// tape: definitions by their key (name, uri or uriTemplate).
type catalog struct {
	method  string
	listed  bool // the method was answered with a result at least once
	keys    []string
	defs    map[string]map[string]json.RawMessage
	seqs    map[string]int64 // the answer the definition was first seen in
	removed Kind
	added   Kind
}

// listing says where a listing method's answer keeps its definitions and
// by which member they are known.
type listing struct {
	method, member, key string
	removed, added      Kind
}

var listings = []listing{
	{"tools/list", "tools", "name", ToolRemoved, ToolAdded},
	{"resources/list", "resources", "uri", ResourceRemoved, ResourceAdded},
	{"resources/templates/list", "resourceTemplates", "uriTemplate", ResourceTemplateRemoved, ResourceTemplateAdded},
	{"prompts/list", "prompts", "name", PromptRemoved, PromptAdded},
}

// isCatalog reports whether method is a listing or a handshake, whose
// answers are compared as definitions (catalogs, capabilities) rather than
// value by value.
func isCatalog(method string) bool {
	switch method {
	case "initialize", "server/discover":
		return true
	}
	for _, l := range listings {
		if l.method == method {
			return true
		}
	}
	return false
}

// catalogOf collects the definitions l lists in the answers of s, pages
// included; a definition listed twice is kept as first seen.
func catalogOf(s *side, l listing) *catalog {
	c := &catalog{method: l.method, defs: map[string]map[string]json.RawMessage{}, seqs: map[string]int64{}, removed: l.removed, added: l.added}
	for i := range s.exchanges {
		e := &s.exchanges[i]
		if e.method != l.method || e.answer == nil || e.answer.Kind != jsonrpc.KindResponse {
			continue
		}
		c.listed = true
		var res map[string]json.RawMessage
		var defs []map[string]json.RawMessage
		if json.Unmarshal(e.answer.Result(), &res) == nil {
			_ = json.Unmarshal(res[l.member], &defs) // not a list: none
		}
		for _, def := range defs {
			var key string
			if json.Unmarshal(def[l.key], &key) != nil || key == "" {
				continue
			}
			if _, dup := c.defs[key]; dup {
				continue
			}
			c.keys = append(c.keys, key)
			c.defs[key], c.seqs[key] = def, e.ansSeq
		}
	}
	return c
}

// compareCatalogs reports definitions only one of two listings has and
// what changed in those both have. A listing one tape never got is not
// compared (its request shows as unpaired).
func (d *differ) compareCatalogs(a, b *side) {
	for _, l := range listings {
		ca, cb := catalogOf(a, l), catalogOf(b, l)
		if !ca.listed || !cb.listed {
			continue
		}
		for _, k := range ca.keys {
			def, ok := cb.defs[k]
			if !ok {
				d.add(Change{Kind: ca.removed, Method: l.method, Name: k, A: raw(ca.defs[k]), SeqA: ca.seqs[k], SeqB: -1})
				continue
			}
			d.compareDefinition(l, k, ca.defs[k], def, ca.seqs[k], cb.seqs[k])
		}
		for _, k := range cb.keys {
			if _, ok := ca.defs[k]; !ok {
				d.add(Change{Kind: cb.added, Method: l.method, Name: k, B: raw(cb.defs[k]), SeqA: -1, SeqB: cb.seqs[k]})
			}
		}
	}
}

// compareDefinition reports what changed in one definition listed by
// both tapes: its description, its input and output schemas (tools), its
// arguments (prompts), and any other member.
func (d *differ) compareDefinition(l listing, name string, a, b map[string]json.RawMessage, seqA, seqB int64) {
	at := Change{Method: l.method, Name: name, SeqA: seqA, SeqB: seqB}
	handled := map[string]bool{"description": true}
	if !sameJSON(a["description"], b["description"]) {
		c := at
		c.Kind, c.Path, c.A, c.B = DescriptionChanged, "description", a["description"], b["description"]
		d.add(c)
	}
	switch l.method {
	case "tools/list":
		handled["inputSchema"], handled["outputSchema"] = true, true
		d.compareSchema(at, "inputSchema", decode(a["inputSchema"]), decode(b["inputSchema"]), true, 0)
		d.compareSchema(at, "outputSchema", decode(a["outputSchema"]), decode(b["outputSchema"]), false, 0)
	case "prompts/list":
		handled["arguments"] = true
		d.compareArguments(at, a["arguments"], b["arguments"])
	}
	rest := func(def map[string]json.RawMessage) []byte {
		m := make(map[string]json.RawMessage, len(def))
		for k, v := range def {
			if !handled[k] {
				m[k] = v
			}
		}
		out, _ := json.Marshal(m)
		return out
	}
	prefix := "result." + l.member + "[0]"
	for _, diff := range d.values(prefix, prefix, rest(a), rest(b)) {
		c := at
		c.Kind, c.Path, c.A, c.B, c.Detail = DefinitionChanged, diff.Path, diff.Expected, diff.Actual, string(diff.Kind)
		d.add(c)
	}
}

// promptArgument is one of a prompt's arguments.
type promptArgument struct {
	Name        string          `json:"name"`
	Description json.RawMessage `json:"description"`
	Required    bool            `json:"required"`
	raw         json.RawMessage
}

// compareArguments reports a prompt's arguments removed (breaking),
// added (breaking when required), made required (breaking) or optional,
// and their descriptions changed.
func (d *differ) compareArguments(at Change, a, b json.RawMessage) {
	args := func(raw json.RawMessage) (names []string, by map[string]promptArgument) {
		var list []json.RawMessage
		_ = json.Unmarshal(raw, &list)
		by = map[string]promptArgument{}
		for _, r := range list {
			var p promptArgument
			if json.Unmarshal(r, &p) != nil || p.Name == "" {
				continue
			}
			p.raw = r
			names, by[p.Name] = append(names, p.Name), p
		}
		return names, by
	}
	namesA, byA := args(a)
	namesB, byB := args(b)
	for _, n := range namesA {
		c := at
		c.Path = "arguments" + pathName(n)
		pa := byA[n]
		pb, ok := byB[n]
		switch {
		case !ok:
			c.Kind, c.A = PropertyRemoved, pa.raw
		case !pa.Required && pb.Required:
			c.Kind, c.A, c.B = ParamMadeRequired, pa.raw, pb.raw
		case pa.Required && !pb.Required:
			c.Kind, c.A, c.B = ParamMadeOptional, pa.raw, pb.raw
		}
		if c.Kind != "" {
			d.add(c)
		}
		if ok && !sameJSON(pa.Description, pb.Description) {
			c := at
			c.Kind, c.Path, c.A, c.B = DescriptionChanged, "arguments"+pathName(n)+".description", pa.Description, pb.Description
			d.add(c)
		}
	}
	for _, n := range namesB {
		if _, ok := byA[n]; ok {
			continue
		}
		c := at
		c.Path, c.B, c.Kind = "arguments"+pathName(n), byB[n].raw, ParamAdded
		if byB[n].Required {
			c.Kind = RequiredAdded
		}
		d.add(c)
	}
}

func raw(def map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(def)
	return b
}
