package tapediff

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/replayctl/replayctl/internal/jsonpath"
)

// maxSchemaDepth bounds the recursion into nested schemas (properties,
// items): a deeper difference is reported as schema_changed there.
const maxSchemaDepth = 32

// compareSchema reports what changed between two JSON Schemas of a tool,
// at path: the type (breaking), properties removed (breaking), properties
// added (for an input, breaking when required), properties made required
// (input, breaking) or optional, descriptions, and any other keyword as
// schema_changed. It recurses into the properties both have and into
// items. A schema absent on one side counts as the empty schema.
func (d *differ) compareSchema(at Change, path string, a, b any, input bool, depth int) {
	sa, _ := a.(map[string]any)
	sb, _ := b.(map[string]any)
	if sa == nil && sb == nil {
		if !sameValue(a, b) { // true/false schemas, or not schemas at all
			d.schemaChange(at, SchemaChanged, path, a, b)
		}
		return
	}
	if depth >= maxSchemaDepth {
		if !sameValue(a, b) {
			d.schemaChange(at, SchemaChanged, path, a, b)
		}
		return
	}
	if ta, tb := sa["type"], sb["type"]; ta != nil && tb != nil && !sameValue(ta, tb) {
		d.schemaChange(at, TypeChanged, join(path, "type"), ta, tb)
	} else if (ta == nil) != (tb == nil) {
		d.schemaChange(at, SchemaChanged, join(path, "type"), ta, tb)
	}
	if !sameValue(sa["description"], sb["description"]) {
		d.schemaChange(at, DescriptionChanged, join(path, "description"), sa["description"], sb["description"])
	}
	propsA, _ := sa["properties"].(map[string]any)
	propsB, _ := sb["properties"].(map[string]any)
	reqA, reqB := stringSet(sa["required"]), stringSet(sb["required"])
	for _, n := range sortedKeys(propsA) {
		p := join(path, "properties") + pathName(n)
		pb, ok := propsB[n]
		if !ok {
			d.schemaChange(at, PropertyRemoved, p, propsA[n], nil)
			continue
		}
		if input && !reqA[n] && reqB[n] {
			d.schemaChange(at, ParamMadeRequired, p, propsA[n], pb)
		} else if input && reqA[n] && !reqB[n] {
			d.schemaChange(at, ParamMadeOptional, p, propsA[n], pb)
		}
		d.compareSchema(at, p, propsA[n], pb, input, depth+1)
	}
	for _, n := range sortedKeys(propsB) {
		if _, ok := propsA[n]; ok {
			continue
		}
		p := join(path, "properties") + pathName(n)
		switch {
		case !input:
			d.schemaChange(at, PropertyAdded, p, nil, propsB[n])
		case reqB[n]:
			d.schemaChange(at, RequiredAdded, p, nil, propsB[n])
		default:
			d.schemaChange(at, ParamAdded, p, nil, propsB[n])
		}
	}
	// A name required without being a property: required all the same.
	for _, n := range sortedKeys(reqB) {
		if _, isProp := propsB[n]; !isProp && !reqA[n] && input {
			d.schemaChange(at, RequiredAdded, join(path, "required"), sa["required"], sb["required"])
			break
		}
	}
	if !input && !sameValue(setValue(reqA), setValue(reqB)) {
		d.schemaChange(at, SchemaChanged, join(path, "required"), sa["required"], sb["required"])
	}
	if sa["items"] != nil || sb["items"] != nil {
		d.compareSchema(at, join(path, "items"), sa["items"], sb["items"], input, depth+1)
	}
	handled := map[string]bool{"type": true, "description": true, "properties": true, "required": true, "items": true}
	for _, k := range sortedKeys(union(sa, sb)) {
		if !handled[k] && !sameValue(sa[k], sb[k]) {
			d.schemaChange(at, SchemaChanged, join(path, k), sa[k], sb[k])
		}
	}
}

func (d *differ) schemaChange(at Change, k Kind, path string, a, b any) {
	c := at
	c.Kind, c.Path, c.A, c.B = k, path, encode(a), encode(b)
	d.add(c)
}

// encode is v as JSON; nil for nil (absent).
func encode(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func sameValue(a, b any) bool { return canonical(a) == canonical(b) }

func sameJSON(a, b json.RawMessage) bool {
	return canonical(json.RawMessage(a)) == canonical(json.RawMessage(b))
}

func stringSet(v any) map[string]bool {
	list, _ := v.([]any)
	set := make(map[string]bool, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			set[s] = true
		}
	}
	return set
}

func setValue(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func union(a, b map[string]any) map[string]bool {
	u := make(map[string]bool, len(a)+len(b))
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// join appends a member name to path as the validator writes it: after a
// dot when plain, quoted in brackets when not (internal/jsonpath).
func join(path, name string) string {
	if path == "" {
		return jsonpath.Render([]jsonpath.Seg{jsonpath.Key(name)})
	}
	return path + jsonpath.RenderMember(name)
}

// pathName is a member name as the validator writes it in a path:
// ".name" when plain (letters, digits, '_', '-'), else `["a.b"]` (the one
// path language, internal/jsonpath).
func pathName(name string) string { return jsonpath.RenderMember(name) }
