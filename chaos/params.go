package chaos

import (
	"bytes"
	"strconv"
)

// badParams returns o (a request or notification) with its params spoiled
// as f's variant says. A message with nothing to remove (no params, or
// empty ones) gets its types swapped instead.
func badParams(f Fault, o *object) []byte {
	params, _ := o.get("params")
	switch f.Variant() {
	case badDropField:
		if p, ok := dropField(params, f.Param>>8); ok {
			o.set("params", p)
			return o.bytes()
		}
	case badHugeString:
		o.set("params", place(params, hugeString()))
		return o.bytes()
	case badDeepNesting:
		o.set("params", place(params, deepNesting()))
		return o.bytes()
	}
	if params == nil {
		o.set("params", []byte("[]"))
	} else {
		o.set("params", swapTypes(params, 0))
	}
	return o.bytes()
}

// dropField removes params' "arguments" member (so a tool call loses its
// required arguments) or, when there is none, the member r mod n. ok is
// false when params is not an object with members.
func dropField(params []byte, r uint64) ([]byte, bool) {
	if !isObject(params) {
		return nil, false
	}
	p, err := parseObject(params)
	if err != nil || len(p.members) == 0 {
		return nil, false
	}
	if !p.remove("arguments") {
		i := int(r % uint64(len(p.members)))
		p.members = append(p.members[:i:i], p.members[i+1:]...)
	}
	return p.bytes(), true
}

// place puts val where a server will read it: in place of the first string
// member of params.arguments (a tool call's arguments), else of params,
// else as a new member "chaos". params that are not an object become one.
func place(params, val []byte) []byte {
	if !isObject(params) {
		params = []byte("{}")
	}
	p, err := parseObject(params)
	if err != nil {
		p = &object{}
	}
	if args, ok := p.get("arguments"); ok && isObject(args) {
		if a, err := parseObject(args); err == nil {
			p.set("arguments", putValue(a, val))
			return p.bytes()
		}
	}
	return putValue(p, val)
}

func putValue(o *object, val []byte) []byte {
	for i, m := range o.members {
		if len(m.val) > 0 && m.val[0] == '"' {
			o.members[i].val = val
			return o.bytes()
		}
	}
	o.set("chaos", val)
	return o.bytes()
}

// hugeString is a JSON string of HugeStringLen letters.
func hugeString() []byte {
	b := make([]byte, HugeStringLen+2)
	b[0] = '"'
	for i := 1; i <= HugeStringLen; i++ {
		b[i] = 'A' + byte(i%26)
	}
	b[len(b)-1] = '"'
	return b
}

// deepNesting is DeepNesting arrays, each inside the next.
func deepNesting() []byte {
	return append(bytes.Repeat([]byte{'['}, DeepNesting), bytes.Repeat([]byte{']'}, DeepNesting)...)
}

// swapTypes returns the JSON value v with every type swapped: a string
// becomes a number, a number or a boolean its text as a string, null 0, an
// array an object. An object keeps its members, each swapped, down to two
// levels (params, then arguments); deeper, or empty, it becomes an array.
func swapTypes(v []byte, depth int) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return []byte("0")
	}
	switch v[0] {
	case '"':
		return []byte("12345")
	case 't', 'f':
		return []byte(strconv.Quote(string(v)))
	case 'n':
		return []byte("0")
	case '[':
		return []byte("{}")
	case '{':
		o, err := parseObject(v)
		if err != nil || len(o.members) == 0 || depth >= 2 {
			return []byte("[]")
		}
		for i := range o.members {
			o.members[i].val = swapTypes(o.members[i].val, depth+1)
		}
		return o.bytes()
	default: // a number
		return []byte(strconv.Quote(string(v)))
	}
}
