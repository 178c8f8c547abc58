package chaos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

var sampleMsgs = map[string]string{
	"tool call":    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":"two","deep":{"x":true}}}}`,
	"no params":    `{"jsonrpc":"2.0","id":"req-1","method":"tools/list"}`,
	"notification": `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}}`,
	"array params": `{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2,3]}`,
	"spaced":       "{ \"jsonrpc\" : \"2.0\", \"id\" : 3 , \"method\" : \"ping\" , \"params\" : { } }\n",
	"escaped key":  `{"jsonrpc":"2.0","id":4,"meth\u006fd":"resources/read","params":{"uri":"file:///a"}}`,
}

// checkMutation says what is wrong with out, the result of
// MutateWithPrev(f, msg, prev), msg being a valid request or notification.
func checkMutation(f Fault, msg, prev []byte, out [][]byte) error {
	orig, err := jsonrpc.ParseStrict(msg)
	if err != nil {
		return fmt.Errorf("test bug: sample is not valid JSON-RPC: %v", err)
	}
	want := func(n int) error {
		if len(out) != n {
			return fmt.Errorf("got %d messages, want %d", len(out), n)
		}
		return nil
	}
	switch f.Kind {
	case Malformed:
		if err := want(1); err != nil {
			return err
		}
		if json.Valid(out[0]) {
			return fmt.Errorf("got valid JSON %.80q, want malformed", out[0])
		}
		if !bytes.Contains(msg, []byte("\n")) && bytes.Contains(out[0], []byte("\n")) {
			return fmt.Errorf("got a newline in %.80q: it would be two lines", out[0])
		}
	case Invalid:
		if err := want(1); err != nil {
			return err
		}
		if !json.Valid(out[0]) {
			return fmt.Errorf("got %.80q, want valid JSON", out[0])
		}
		if _, err := jsonrpc.ParseStrict(out[0]); err == nil {
			return fmt.Errorf("got valid JSON-RPC %.80q, want invalid", out[0])
		}
	case UnknownMethod:
		if err := want(1); err != nil {
			return err
		}
		m, err := jsonrpc.ParseStrict(out[0])
		if err != nil {
			return fmt.Errorf("got %v, want valid JSON-RPC", err)
		}
		if !strings.HasPrefix(m.Method, "chaos/unknown-") || m.Kind != orig.Kind {
			return fmt.Errorf("got %s %q, want a %s to chaos/unknown-…", m.Kind, m.Method, orig.Kind)
		}
	case BadParams:
		if err := want(1); err != nil {
			return err
		}
		switch f.Variant() {
		case badHugeString:
			if _, err := jsonrpc.ParseStrict(out[0]); err != nil {
				return fmt.Errorf("got %v, want valid JSON-RPC", err)
			}
			if !bytes.Contains(out[0], hugeString()) {
				return fmt.Errorf("got no %d-byte string", HugeStringLen)
			}
		case badDeepNesting:
			if _, err := jsonrpc.Parse(out[0]); err != nil {
				return fmt.Errorf("got %v, want a JSON-RPC message (its grammar aside)", err)
			}
			if d := depth(out[0]); d < DeepNesting {
				return fmt.Errorf("got nesting depth %d, want ≥ %d", d, DeepNesting)
			}
		default:
			m, err := jsonrpc.ParseStrict(out[0])
			if err != nil {
				return fmt.Errorf("got %v, want valid JSON-RPC", err)
			}
			if bytes.Equal(m.Params(), orig.Params()) || m.Method != orig.Method {
				return fmt.Errorf("got %s params %s, want %s with params changed from %s", m.Method, m.Params(), orig.Method, orig.Params())
			}
		}
	case DuplicateID:
		if prev == nil {
			if err := want(2); err != nil {
				return err
			}
			if !bytes.Equal(out[0], msg) || !bytes.Equal(out[1], msg) {
				return fmt.Errorf("got %q, want the message twice", out)
			}
			return nil
		}
		if err := want(1); err != nil {
			return err
		}
		m, err := jsonrpc.ParseStrict(out[0])
		if err != nil {
			return fmt.Errorf("got %v, want valid JSON-RPC", err)
		}
		if jsonrpc.IDKey(m.ID) != jsonrpc.IDKey(prev) || m.Method != orig.Method {
			return fmt.Errorf("got %s id %s, want %s id %s", m.Method, m.ID, orig.Method, prev)
		}
	case Duplicate:
		if err := want(2); err != nil {
			return err
		}
		if !bytes.Equal(out[0], msg) || !bytes.Equal(out[1], msg) {
			return fmt.Errorf("got %q, want the message twice", out)
		}
	case Drop:
		return want(0)
	case Cancel:
		if err := want(2); err != nil {
			return err
		}
		c, err := jsonrpc.ParseStrict(out[1])
		if err != nil || c.Kind != jsonrpc.KindNotification || c.Method != "notifications/cancelled" {
			return fmt.Errorf("got %q (%v), want notifications/cancelled", out[1], err)
		}
		var p struct{ RequestID json.RawMessage }
		if err := json.Unmarshal(c.Params(), &p); err != nil || jsonrpc.IDKey(p.RequestID) != jsonrpc.IDKey(orig.ID) {
			return fmt.Errorf("got requestId %s, want %s", p.RequestID, orig.ID)
		}
		if !bytes.Equal(out[0], msg) {
			return fmt.Errorf("got %q first, want the request", out[0])
		}
	default:
		if err := want(1); err != nil {
			return err
		}
		if !bytes.Equal(out[0], msg) {
			return fmt.Errorf("got %.80q, want the message unchanged", out[0])
		}
	}
	return nil
}

// depth is the deepest nesting of objects and arrays in a JSON text.
func depth(b []byte) int {
	d, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

// applicable says whether kind k can be made from msg.
func applicable(k Kind, m jsonrpc.Message) bool {
	switch k {
	case DuplicateID, Cancel:
		return m.Kind == jsonrpc.KindRequest
	}
	return true
}

func TestMutateEveryVariant(t *testing.T) {
	prevs := [][]byte{nil, []byte(`"earlier"`), []byte("41")}
	for name, msg := range sampleMsgs {
		m, err := jsonrpc.ParseStrict([]byte(msg))
		if err != nil {
			t.Fatalf("sample %s: %v", name, err)
		}
		for _, k := range Kinds() {
			for v := range max(1, len(variants[k])) {
				for _, prev := range prevs {
					f := Fault{Kind: k, Seq: 3, Session: "s1", Param: uint64(v) + 0xabcdef00*uint64(len(name))}
					f.Param -= f.Param % uint64(max(1, len(variants[k])))
					f.Param += uint64(v)
					t.Run(fmt.Sprintf("%s/%s/%s/prev=%s", name, k, detail(k, f.Param), prev), func(t *testing.T) {
						out, err := MutateWithPrev(f, []byte(msg), prev)
						if !applicable(k, m) {
							if !errors.Is(err, ErrNotApplicable) {
								t.Fatalf("got error %v, want ErrNotApplicable", err)
							}
							return
						}
						if err != nil {
							t.Fatalf("got error %v, want none", err)
						}
						if err := checkMutation(f, []byte(msg), prev, out); err != nil {
							t.Error(err)
						}
					})
				}
			}
		}
	}
}

func TestMutateDeterministic(t *testing.T) {
	msg := []byte(sampleMsgs["tool call"])
	for _, k := range Kinds() {
		for _, param := range []uint64{0, 1, 2, 3, 0xfeedface, 1<<64 - 1} {
			f := Fault{Kind: k, Param: param}
			a, errA := Mutate(f, msg)
			b, errB := Mutate(f, bytes.Clone(msg))
			if fmt.Sprint(errA) != fmt.Sprint(errB) || !equalAll(a, b) {
				t.Errorf("%s param %#x: two calls differ", k, param)
			}
		}
	}
	// Different Params give different truncations and names.
	seen := map[string]bool{}
	for p := range uint64(64) {
		out, err := Mutate(Fault{Kind: UnknownMethod, Param: p << 16}, msg)
		if err != nil {
			t.Fatal(err)
		}
		seen[string(out[0])] = true
	}
	if len(seen) != 64 {
		t.Errorf("unknown-method: got %d distinct names for 64 params, want 64", len(seen))
	}
}

func equalAll(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestMutateInput(t *testing.T) {
	original := sampleMsgs["tool call"]
	msg := []byte(original)
	for _, k := range Kinds() {
		for v := range uint64(4) {
			if _, err := MutateWithPrev(Fault{Kind: k, Param: v}, msg, []byte("1")); err != nil {
				t.Errorf("%s: %v", k, err)
			}
		}
	}
	if string(msg) != original {
		t.Errorf("Mutate wrote to its input: got %s, want %s", msg, original)
	}
}

func TestMutateNotApplicable(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		msg  string
		prev []byte
	}{
		{"unknown-method on a response", UnknownMethod, `{"jsonrpc":"2.0","id":1,"result":{}}`, nil},
		{"bad-params on a response", BadParams, `{"jsonrpc":"2.0","id":1,"result":{}}`, nil},
		{"cancel on a notification", Cancel, sampleMsgs["notification"], nil},
		{"duplicate-id on a notification", DuplicateID, sampleMsgs["notification"], nil},
		{"duplicate-id with a bad previous id", DuplicateID, sampleMsgs["tool call"], []byte("{nope")},
		{"invalid on a non-object", Invalid, `[1,2]`, nil},
		{"invalid on broken JSON", Invalid, `{"a":"\x"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MutateWithPrev(Fault{Kind: tt.kind, Seq: 9, Session: "s2"}, []byte(tt.msg), tt.prev)
			if !errors.Is(err, ErrNotApplicable) || !strings.Contains(err.Error(), "seq 9 (session s2)") {
				t.Errorf("got %v, want ErrNotApplicable naming seq 9 (session s2)", err)
			}
		})
	}
	if _, err := Mutate(Fault{Kind: "explode"}, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "known kinds") {
		t.Errorf("unknown kind: got %v, want an error listing the known kinds", err)
	}
}

func TestMalformedOddInput(t *testing.T) {
	// Whatever the message, malformed output is never valid JSON.
	for _, msg := range []string{"", "1", "12345", `"abc"`, "{}", "[]", "  {}  \n", "null", "x"} {
		for v := range uint64(8) {
			out, err := Mutate(Fault{Kind: Malformed, Param: v | v<<8}, []byte(msg))
			if err != nil || len(out) != 1 || json.Valid(out[0]) {
				t.Errorf("malformed %q variant %d: got %q, %v, want one invalid line", msg, v%4, out, err)
			}
		}
	}
}
