package chaos

import (
	"bytes"
	"encoding/json"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// object is a JSON object taken apart into its top-level members, for the
// mutations that edit one. Values are sub-slices of the parsed bytes;
// bytes builds a fresh slice, so the input is never written to.
type object struct {
	members []member
}

type member struct {
	name string // decoded, for lookups
	key  []byte // the raw key between the quotes, written back as is
	val  []byte
}

// parseObject takes doc apart. doc must be valid JSON (callers check
// json.Valid first: jsonscan does not check escapes); an error means it is
// not an object.
func parseObject(doc []byte) (*object, error) {
	o := &object{}
	err := jsonscan.Members(doc, func(m jsonscan.Member) bool {
		name := string(m.Key)
		if m.KeyEscaped {
			var s string
			q := append(append([]byte{'"'}, m.Key...), '"')
			if json.Unmarshal(q, &s) == nil {
				name = s
			}
		}
		o.members = append(o.members, member{name: name, key: m.Key, val: doc[m.Start:m.End]})
		return true
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// get returns the value of the first member called name.
func (o *object) get(name string) ([]byte, bool) {
	for _, m := range o.members {
		if m.name == name {
			return m.val, true
		}
	}
	return nil, false
}

// set gives every member called name the value val, or adds the member
// first when there is none.
func (o *object) set(name string, val []byte) {
	found := false
	for i := range o.members {
		if o.members[i].name == name {
			o.members[i].val = val
			found = true
		}
	}
	if !found {
		o.members = append([]member{{name: name, key: quoteKey(name), val: val}}, o.members...)
	}
}

// remove drops every member called name and reports whether there was one.
func (o *object) remove(name string) bool {
	kept := o.members[:0:0]
	for _, m := range o.members {
		if m.name != name {
			kept = append(kept, m)
		}
	}
	removed := len(kept) != len(o.members)
	o.members = kept
	return removed
}

// bytes writes the object out, compact.
func (o *object) bytes() []byte {
	n := 2
	for _, m := range o.members {
		n += len(m.key) + len(m.val) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range o.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, m.key...)
		b = append(b, '"', ':')
		b = append(b, m.val...)
	}
	return append(b, '}')
}

// quoteKey returns the raw key bytes (between the quotes) for name.
func quoteKey(name string) []byte {
	q, _ := json.Marshal(name) // a string always marshals
	return q[1 : len(q)-1]
}

// isObject reports whether the JSON value v is an object.
func isObject(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}
