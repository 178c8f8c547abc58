package jsonrpc

import (
	"bytes"
	"reflect"
	"testing"
)

// checkKept: Keep(m).Of(raw) is m for a valid message, and nothing for a
// copy of raw, a part of it, or an invalid message.
func checkKept(t *testing.T, raw []byte, m Message, err error) {
	t.Helper()
	k := Keep(m)
	got, ok := k.Of(raw)
	body := m.body()
	foreign := m.params != *body && m.params.ok() || m.result != *body && m.result.ok() || m.errv != *body && m.errv.ok()
	_, known := methodIndex[m.Method]
	if err != nil || len(raw) == 0 || foreign || m.Method != "" && !known {
		if ok {
			t.Fatalf("Keep of an invalid message (%v) gave %+v back", err, got)
		}
		return
	}
	if !ok || !reflect.DeepEqual(got, m) {
		t.Fatalf("Keep(%q).Of = %+v, %v; want %+v", raw, got, ok, m)
	}
	// Into writes every field: over a message with all of them set (and a
	// span of each member), what is left is m.
	into := dirty()
	if !k.Into(raw, &into) || !reflect.DeepEqual(into, m) {
		t.Fatalf("Keep(%q).Into a used Message = %+v; want %+v", raw, into, m)
	}
	into = dirty()
	if k.Into(bytes.Clone(raw), &into) || !reflect.DeepEqual(into, dirty()) {
		t.Fatalf("Keep(%q).Into of a copy: true or *m changed (%+v)", raw, into)
	}
	if _, ok := k.Of(bytes.Clone(raw)); ok {
		t.Fatalf("Keep(%q).Of a copy: ok, want false", raw)
	}
	if _, ok := k.Of(raw[:len(raw)-1]); ok {
		t.Fatalf("Keep(%q).Of a shorter slice: ok, want false", raw)
	}
	if _, ok := (Kept{}).Of(raw); ok {
		t.Fatal("the zero Kept gave a message")
	}
}

// dirty is a Message with every field set, for Into to write over.
func dirty() Message {
	raw := []byte(`{"jsonrpc":"2.0","id":99,"method":"x/y","params":{}}`)
	m, err := Parse(raw)
	if err != nil {
		panic(err)
	}
	m.result, m.errv = span{1, 2}, span{3, 4}
	return m
}

func TestKept(t *testing.T) {
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":[1]}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"x":[1,2]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"}]`,
		`{"jsonrpc":"2.0","id":1}`, ``,
	} {
		b := []byte(raw)
		m, err := Parse(b)
		checkKept(t, b, m, err)
	}
}

// TestKeptParamsAndID: what a kept message gives back is sliced from the
// bytes it is given, not from the ones it was parsed from.
func TestKeptParamsAndID(t *testing.T) {
	raw := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":1}}`)
	m, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := Keep(m).Of(raw)
	if !ok || string(got.ID) != "7" || string(got.Params()) != `{"a":1}` || got.Method != "tools/call" || got.Kind != KindRequest {
		t.Fatalf("got %+v, %v", got, ok)
	}
	if out := got.WithID([]byte(`"x"`)); string(out) != `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"a":1}}` {
		t.Fatalf("WithID: %s", out)
	}
}

// TestKeptNotAMemberOfAnotherKind: a response with params (Parse finds
// both) is not kept, as Kept holds one of params, result and error.
func TestKeptNotAMemberOfAnotherKind(t *testing.T) {
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"},"params":[]}`,
	} {
		b := []byte(raw)
		m, err := Parse(b)
		if err != nil || !m.params.ok() {
			t.Fatalf("Parse(%s) = %+v, %v; want a valid message with params", raw, m, err)
		}
		if _, ok := Keep(m).Of(b); ok {
			t.Errorf("Keep(%s).Of: ok, want not kept", raw)
		}
	}
}

// TestKeptMethods: a message of any of MCP's methods is kept, and gives
// its method back; one of another method is not (Kept holds no string).
func TestKeptMethods(t *testing.T) {
	if len(knownMethods) > 255 {
		t.Fatalf("%d known methods: more than a Kept's uint8 names", len(knownMethods))
	}
	for _, name := range append(knownMethods[:], "x/custom") {
		b := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + name + `"}`)
		m, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Keep(m).Of(b)
		if _, known := knownMethod([]byte(name)); ok != known || ok && got.Method != name {
			t.Errorf("%s: kept %v (method %q), want kept %v", name, ok, got.Method, known)
		}
	}
}
