package mock

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestCanonHashIsJSONEquality(t *testing.T) {
	same := [][]string{
		{`{"name":"a","arguments":{"x":1,"y":[1,2]}}`, `{ "arguments" : { "y" : [ 1 , 2 ] , "x" : 1 } , "name" : "a" }`, "{\n\t\"arguments\":{\"x\":1,\"y\":[1,2]},\"name\":\"\\u0061\"}"},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`{"b":1,"a":1,"b":3}`, `{"a":1,"b":3}`},
		{`"x\"y\\z\n"`, `"x\u0022y\u005cz\u000a"`},
		{`{"é":"ü"}`, `{"\u00e9":"\u00fc"}`},
		{`"a\u2028"`, "\"a\u2028\""},
		{`"<&>"`, `"\u003c\u0026\u003e"`},
		{`{}`, ` { } `},
		{`[]`, `[ ]`},
		{`null`, ` null`},
		{"\"\xff\"", `"\ufffd"`},
	}
	differ := []string{`{"name":"a"}`, `{"name":"b"}`, `{"name":"a","x":null}`, `{"Name":"a"}`, `[1,2]`, `[2,1]`, `1`, `1.0`, `"1"`, `{"a":{"b":1}}`, `{"a":{"b":"1"}}`, `null`, `{}`, `[]`, `""`, `not json`, `{"name":"a"`}
	var c canon
	for _, group := range same {
		h := c.hash([]byte(group[0]))
		for _, p := range group[1:] {
			if c.hash([]byte(p)) != h {
				t.Errorf("%s and %s: hashes differ", group[0], p)
			}
		}
	}
	seen := map[uint64]string{c.hash(nil): "(none)"}
	for _, p := range differ {
		h := c.hash([]byte(p))
		if q, ok := seen[h]; ok {
			t.Errorf("%s and %s: same hash", p, q)
		}
		seen[h] = p
	}
	// Not JSON matches only itself.
	if c.hash([]byte(`{"a":}`)) != c.hash([]byte(`{"a":}`)) || c.hash([]byte(`{"a":}`)) == c.hash([]byte(`{ "a":}`)) {
		t.Error("params that are not JSON: want equal hashes for equal bytes only")
	}
}

// FuzzCanonHash checks that the hash agrees with decoded equality.
func FuzzCanonHash(f *testing.F) {
	f.Add(`{"b":[1,{"d":2,"c":"\u00e9"}],"a":null}`, `{"a":null,"b":[1,{"c":"é","d":2}]}`)
	f.Add(`{"a":1}`, `{"a":1,"a":1}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !json.Valid([]byte(a)) || !json.Valid([]byte(b)) {
			return
		}
		var c canon
		equal := c.hash([]byte(a)) == c.hash([]byte(b))
		if want := decodedEqual([]byte(a), []byte(b)); equal != want {
			t.Errorf("%s and %s: hashes equal %v, decoded equal %v", a, b, equal, want)
		}
	})
}

func decodedEqual(a, b []byte) bool {
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
