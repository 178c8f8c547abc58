package shrink

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// node is a JSON value in the order it was written: an object keeps its
// members' order, so that a simplified message differs from the
// recorded one only where it was simplified.
type node struct {
	members []member // an object
	items   []*node  // an array
	isObj   bool
	isArr   bool
	str     *string         // a string
	raw     json.RawMessage // a number, true, false, null
}

type member struct {
	key string
	val *node
}

func decodeNode(d *json.Decoder) (*node, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &node{isObj: v == '{', isArr: v == '['}
		for d.More() {
			if n.isObj {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				val, err := decodeNode(d)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{kt.(string), val})
				continue
			}
			val, err := decodeNode(d)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, val)
		}
		if _, err := d.Token(); err != nil {
			return nil, err
		}
		return n, nil
	case string:
		return &node{str: &v}, nil
	case json.Number:
		return &node{raw: json.RawMessage(v)}, nil
	case bool:
		return &node{raw: json.RawMessage(strconv.FormatBool(v))}, nil
	case nil:
		return &node{raw: json.RawMessage("null")}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func (n *node) encode(b *bytes.Buffer) {
	switch {
	case n.isObj:
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.key)
			b.WriteByte(':')
			m.val.encode(b)
		}
		b.WriteByte('}')
	case n.isArr:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.encode(b)
		}
		b.WriteByte(']')
	case n.str != nil:
		writeString(b, *n.str)
	default:
		b.Write(n.raw)
	}
}

func writeString(b *bytes.Buffer, s string) {
	e := json.NewEncoder(b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)         // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// Simplifications are the messages one step simpler than raw, a client
// request or notification: its params with one member or array item
// left out, or one string cut to its first half (each string longer than
// one character), in document order, members before the strings inside
// them. The params' name (the tool, prompt) and uri stay: without them
// the message names another call. Only the params' bytes change; the
// rest of raw is kept byte for byte. None for a message with no params
// object, or with bytes in its params that are not UTF-8.
func Simplifications(raw []byte) [][]byte {
	rpc, err := jsonrpc.Parse(raw)
	if err != nil || (rpc.Kind != jsonrpc.KindRequest && rpc.Kind != jsonrpc.KindNotification) {
		return nil
	}
	start, end := -1, -1
	_ = jsonscan.Members(raw, func(m jsonscan.Member) bool {
		if !m.KeyEscaped && string(m.Key) == "params" {
			start, end = m.Start, m.End
			return false
		}
		return true
	})
	if start < 0 {
		return nil
	}
	params := raw[start:end]
	if !utf8.Valid(params) { // re-encoded, its bad bytes would change: leave it as recorded
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	root, err := decodeNode(d)
	if err != nil || !root.isObj {
		return nil
	}
	var out [][]byte
	emit := func() {
		var b bytes.Buffer
		b.Write(raw[:start])
		root.encode(&b)
		b.Write(raw[end:])
		out = append(out, b.Bytes())
	}
	var walk func(n *node, top bool)
	walk = func(n *node, top bool) {
		switch {
		case n.isObj:
			for i := 0; i < len(n.members); i++ {
				m := n.members[i]
				if top && (m.key == "name" || m.key == "uri") {
					continue
				}
				saved := n.members
				n.members = append(append([]member(nil), saved[:i]...), saved[i+1:]...)
				emit()
				n.members = saved
			}
			for _, m := range n.members {
				if top && (m.key == "name" || m.key == "uri") {
					continue
				}
				walk(m.val, false)
			}
		case n.isArr:
			for i := range n.items {
				saved := n.items
				n.items = append(append([]*node(nil), saved[:i]...), saved[i+1:]...)
				emit()
				n.items = saved
			}
			for _, it := range n.items {
				walk(it, false)
			}
		case n.str != nil && utf8.RuneCountInString(*n.str) > 1:
			saved := n.str
			half := halve(*saved)
			n.str = &half
			emit()
			n.str = saved
		}
	}
	walk(root, true)
	return out
}

// halve is the first half of s, by characters.
func halve(s string) string {
	n := utf8.RuneCountInString(s) / 2
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}
