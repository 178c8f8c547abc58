package contract

import (
	"encoding/json"
	"maps"
	"slices"
)

// Change is one difference between two contracts A and B.
type Change struct {
	// Kind: "added", "removed" (a tool, resource, prompt or member),
	// "type" (the types allowed), "optional" (a member required in A is
	// not in B), "required" (an input member now required), "enum",
	// "format", "input" (an input schema changed otherwise).
	Kind string `json:"kind"`
	// Breaking: a client that worked with A may not with B (see Diff).
	Breaking bool            `json:"breaking"`
	What     string          `json:"what"`           // "tool echo", "resource file:///a", "prompt p"
	Part     string          `json:"part,omitempty"` // "input" or "output"; "" for the whole entry
	Path     string          `json:"path,omitempty"`
	A        json.RawMessage `json:"a,omitempty"`
	B        json.RawMessage `json:"b,omitempty"`
}

// Diff says what changed from contract a to contract b, breaking changes
// first, then by what and path. Breaking: a tool, resource or prompt
// removed; in an output, a type that A did not allow, a member A always
// had that B may lack, a string value outside A's enum, a format lost or
// changed; in an input, a member removed, newly required or of another
// type. The rest (additions, narrower outputs, samples) is not.
func Diff(a, b *Contract) []Change {
	var cs []Change
	for _, k := range []struct {
		what string
		a, b map[string]*Entry
	}{{"tool", a.Tools, b.Tools}, {"resource", a.Resources, b.Resources}, {"prompt", a.Prompts, b.Prompts}} {
		for _, name := range slices.Sorted(maps.Keys(k.a)) {
			what := k.what + " " + name
			eb, ok := k.b[name]
			if !ok {
				cs = append(cs, Change{Kind: "removed", Breaking: true, What: what})
				continue
			}
			ea := k.a[name]
			cs = diffInput(cs, what, ea.Input, eb.Input)
			if ea.Output != nil && eb.Output != nil {
				cs = diffOutput(cs, what, elems{member("result")}, ea.Output, eb.Output)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(k.b)) {
			if _, ok := k.a[name]; !ok {
				cs = append(cs, Change{Kind: "added", What: k.what + " " + name})
			}
		}
	}
	slices.SortStableFunc(cs, func(x, y Change) int {
		switch {
		case x.Breaking && !y.Breaking:
			return -1
		case !x.Breaking && y.Breaking:
			return 1
		}
		return 0
	})
	return cs
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// diffOutput compares two inferred output schemas at path.
func diffOutput(cs []Change, what string, path elems, a, b *Schema) []Change {
	at := Change{What: what, Part: "output", Path: render(path)}
	if !slices.Equal(a.Type, b.Type) {
		c := at
		c.Kind, c.A, c.B = "type", raw(a.Type), raw(b.Type)
		for _, t := range b.Type {
			c.Breaking = c.Breaking || !a.Type.allows(t)
		}
		cs = append(cs, c)
	}
	for _, k := range slices.Sorted(maps.Keys(a.Properties)) {
		pb, ok := b.Properties[k]
		required := slices.Contains(a.Required, k)
		switch {
		case !ok:
			c := at
			c.Kind, c.Breaking, c.Path, c.A = "removed", required, render(append(path, member(k))), raw(a.Properties[k].Type)
			cs = append(cs, c)
		case required && !slices.Contains(b.Required, k):
			c := at
			c.Kind, c.Breaking, c.Path, c.A, c.B = "optional", true, render(append(path, member(k))), raw("required"), raw("optional")
			cs = append(cs, c)
			fallthrough
		default:
			cs = diffOutput(cs, what, append(path, member(k)), a.Properties[k], pb)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b.Properties)) {
		if _, ok := a.Properties[k]; !ok {
			c := at
			c.Kind, c.Path, c.B = "added", render(append(path, member(k))), raw(b.Properties[k].Type)
			cs = append(cs, c)
		}
	}
	if a.Items != nil && b.Items != nil {
		cs = diffOutput(cs, what, append(path, anyElement), a.Items, b.Items)
	}
	if !slices.Equal(a.Enum, b.Enum) && (len(a.Enum) > 0 || len(b.Enum) > 0) {
		c := at
		c.Kind, c.A, c.B = "enum", raw(a.Enum), raw(b.Enum)
		if len(a.Enum) > 0 {
			for _, v := range b.Enum {
				c.Breaking = c.Breaking || !slices.Contains(a.Enum, v)
			}
			c.Breaking = c.Breaking || len(b.Enum) == 0
		}
		cs = append(cs, c)
	}
	if a.Format != b.Format {
		c := at
		c.Kind, c.Breaking, c.A, c.B = "format", a.Format != "", raw(a.Format), raw(b.Format)
		cs = append(cs, c)
	}
	return cs
}

// inputSchema is what diffInput reads of an input schema.
type inputSchema struct {
	Properties map[string]struct {
		Type json.RawMessage `json:"type"`
	} `json:"properties"`
	Required []string `json:"required"`
}

// diffInput compares two input schemas, member by member at the top.
func diffInput(cs []Change, what string, a, b json.RawMessage) []Change {
	if len(a) == 0 || len(b) == 0 || canonical(a) == canonical(b) {
		return cs
	}
	var sa, sb inputSchema
	if json.Unmarshal(a, &sa) != nil || json.Unmarshal(b, &sb) != nil {
		return append(cs, Change{Kind: "input", What: what, Part: "input", A: a, B: b})
	}
	before := len(cs)
	at := Change{What: what, Part: "input"}
	for _, k := range slices.Sorted(maps.Keys(sa.Properties)) {
		pb, ok := sb.Properties[k]
		c := at
		c.Path = k
		switch {
		case !ok:
			c.Kind, c.Breaking, c.A = "removed", true, sa.Properties[k].Type
			cs = append(cs, c)
		case string(sa.Properties[k].Type) != string(pb.Type):
			c.Kind, c.Breaking, c.A, c.B = "type", true, sa.Properties[k].Type, pb.Type
			cs = append(cs, c)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sb.Properties)) {
		if _, ok := sa.Properties[k]; !ok {
			c := at
			c.Kind, c.Path, c.B, c.Breaking = "added", k, sb.Properties[k].Type, slices.Contains(sb.Required, k)
			cs = append(cs, c)
		}
	}
	for _, k := range sb.Required {
		if _, had := sa.Properties[k]; had && !slices.Contains(sa.Required, k) {
			cs = append(cs, Change{Kind: "required", Breaking: true, What: what, Part: "input", Path: k, A: raw("optional"), B: raw("required")})
		}
	}
	if len(cs) == before { // something else changed: descriptions, nested members
		cs = append(cs, Change{Kind: "input", What: what, Part: "input", A: a, B: b})
	}
	return cs
}

// canonical is a JSON document re-encoded (members sorted, no spaces),
// or itself when it is not JSON.
func canonical(b json.RawMessage) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
