package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress"}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"x":[1,2]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`,
		`{"json\u0072pc":"2.0","id":1,"method":"\u0061"}`,
		`{"jsonrpc":"2.0","id":{},"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"params":{}}`,
		`[`, `{`, ``,
	} {
		f.Add([]byte(s), []byte(`"new-id"`))
	}
	f.Fuzz(func(t *testing.T, raw, newID []byte) {
		m, err := Parse(raw)
		s, serr := ParseStrict(raw)
		if serr == nil && (err != nil || s.Kind != m.Kind || s.Method != m.Method || !bytes.Equal(s.ID, m.ID)) {
			t.Fatalf("ParseStrict ok (%s) but Parse gave %s, %v", s.Kind, m.Kind, err)
		}
		// ParseStrict is json.Valid, then Parse, as it was before it
		// checked and parsed an object in one pass.
		switch {
		case !json.Valid(raw):
			if serr == nil || serr.Error() != "jsonrpc: invalid message: not valid JSON" {
				t.Fatalf("ParseStrict(%q) = %v, want not valid JSON", raw, serr)
			}
		case err != nil:
			if serr == nil || serr.Error() != err.Error() || s.Kind != KindInvalid {
				t.Fatalf("ParseStrict(%q) = %s, %v; want Parse's %v", raw, s.Kind, serr, err)
			}
		case serr != nil:
			t.Fatalf("ParseStrict(%q) = %v, want nil", raw, serr)
		}
		checkKept(t, raw, m, err)
		checkParseStrictAt(t, raw)
		if err != nil {
			if m.Kind != KindInvalid {
				t.Fatalf("error %v with kind %s", err, m.Kind)
			}
			return
		}
		if m.Kind == KindBatch {
			parts, _ := m.Batch()
			for _, p := range parts {
				if !bytes.Contains(raw, p.Raw) {
					t.Fatalf("batch part %q is not inside %q", p.Raw, raw)
				}
			}
			return
		}
		if !json.Valid(newID) || !isScalarID(newID) {
			return
		}
		checkWithID(t, m, newID)
		checkRebase(t, m, newID)
	})
}

func isScalarID(id []byte) bool {
	id = bytes.TrimSpace(id)
	return len(id) > 0 && (id[0] == '"' || id[0] == 'n' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// checkWithID: Parse(WithID(x)) has the new id, the same kind and method,
// and every byte outside the id span is unchanged.
func checkWithID(t *testing.T, m Message, newID []byte) {
	t.Helper()
	out := m.WithID(newID)
	start, end, ok := m.IDSpan()
	if !ok {
		if !bytes.Equal(out, m.Raw) {
			t.Fatalf("no id: got %q, want a copy of %q", out, m.Raw)
		}
		return
	}
	n, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse(WithID(%q)) = %q: %v", newID, out, err)
	}
	if want := bytes.TrimSpace(newID); !bytes.Equal(n.ID, want) || n.Kind != m.Kind || n.Method != m.Method {
		t.Fatalf("got id %q kind %s method %q, want %q %s %q", n.ID, n.Kind, n.Method, want, m.Kind, m.Method)
	}
	if !bytes.Equal(out[:start], m.Raw[:start]) || !bytes.Equal(out[start+len(newID):], m.Raw[end:]) {
		t.Fatalf("bytes outside the id changed: %q -> %q", m.Raw, out)
	}
}

// checkParseStrictAt: ParseStrictAt of raw inside a larger document finds
// the end of the object raw starts with, and says of it what ParseStrict
// says of those bytes alone.
func checkParseStrictAt(t *testing.T, raw []byte) {
	t.Helper()
	doc := append(append([]byte(`{"msg":`), raw...), `,"x":1}`...)
	i := 7
	if i >= len(doc) || doc[i] != '{' {
		return
	}
	m, end, err := ParseStrictAt(doc, i)
	if end < 0 {
		if err == nil || err.Error() != "jsonrpc: invalid message: not valid JSON" {
			t.Fatalf("ParseStrictAt(%q) = end -1, %v; want not valid JSON", raw, err)
		}
		return
	}
	whole, werr := ParseStrict(doc[i:end])
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() ||
		m.Kind != whole.Kind || m.Method != whole.Method || !bytes.Equal(m.ID, whole.ID) || !bytes.Equal(m.Raw, doc[i:end]) ||
		!bytes.Equal(m.Params(), whole.Params()) || !bytes.Equal(m.Result(), whole.Result()) || !bytes.Equal(m.Error(), whole.Error()) {
		t.Fatalf("ParseStrictAt(%q) = %+v, %d, %v; ParseStrict of its %q: %+v, %v", raw, m, end, err, doc[i:end], whole, werr)
	}
	if werr == nil {
		if k, ok := Keep(m).Of(m.Raw); ok && !bytes.Equal(k.Params(), whole.Params()) {
			t.Fatalf("kept params %q, want %q", k.Params(), whole.Params())
		}
	}
}
