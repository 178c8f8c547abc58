package validator

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// diffs renders differences compactly for comparison: "kind path exp act".
func render(ds []Difference) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %s %s %s", d.Kind, d.Path, d.Expected, d.Actual))
	}
	return out
}

func check(t *testing.T, got []Difference, want []string) {
	t.Helper()
	g := render(got)
	if len(g) != len(want) {
		t.Fatalf("got %d differences %q, want %d %q", len(g), g, len(want), want)
	}
	for i := range g {
		if g[i] != want[i] {
			t.Errorf("difference %d: got %q, want %q", i, g[i], want[i])
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name     string
		exp, act string
		want     []string
	}{
		{"identical", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, nil},
		{"other id", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{"id":"x-9","jsonrpc":"2.0","result":{"a":1}}`, nil},
		{"no id or jsonrpc on one side", `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"result":{}}`, nil},
		{"key order", `{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":[1,{"x":1,"y":2}]}}`, `{"result":{"b":[1,{"y":2,"x":1}],"a":1},"id":1,"jsonrpc":"2.0"}`, nil},
		{"white space", `{"jsonrpc":"2.0","id":1,"result":{"a":[1, 2]}}`, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{ \"a\" : [ 1,2 ] }}", nil},
		{"changed string", `{"id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`, `{"id":1,"result":{"content":[{"type":"text","text":"ho"}]}}`,
			[]string{`changed result.content[0].text "hi" "ho"`}},
		{"changed bool", `{"result":{"ok":true}}`, `{"result":{"ok":false}}`, []string{`changed result.ok true false`}},
		{"changed number", `{"result":{"n":1}}`, `{"result":{"n":2}}`, []string{`changed result.n 1 2`}},
		{"type", `{"result":{"n":1}}`, `{"result":{"n":"1"}}`, []string{`type result.n 1 "1"`}},
		{"type null", `{"result":{"n":null}}`, `{"result":{"n":{}}}`, []string{`type result.n null {}`}},
		{"type bool vs null", `{"result":true}`, `{"result":null}`, []string{`type result true null`}},
		{"result vs error", `{"id":1,"result":{}}`, `{"id":1,"error":{"code":-1}}`,
			[]string{`added error  {"code":-1}`, `removed result {} `}},
		{"added member", `{"result":{"a":1}}`, `{"result":{"a":1,"b":{"c": 2}}}`, []string{`added result.b  {"c":2}`}},
		{"removed member", `{"result":{"a":1,"b":2}}`, `{"result":{"a":1}}`, []string{`removed result.b 2 `}},
		{"longer array", `{"result":[1,2]}`, `{"result":[1,2,3,4]}`, []string{`added result[2]  3`, `added result[3]  4`}},
		{"shorter array", `{"result":[1,2,3]}`, `{"result":[1]}`, []string{`removed result[1] 2 `, `removed result[2] 3 `}},
		{"empty arrays", `{"result":[]}`, `{"result":[ ]}`, nil},
		{"index order numeric", `{"result":[0,1,2,3,4,5,6,7,8,9,10,11]}`, `{"result":[0,1,9,3,4,5,6,7,8,9,9,11]}`,
			[]string{`changed result[2] 2 9`, `changed result[10] 10 9`}},
		{"odd keys quoted", `{"result":{"a.b":1,"":2,"x y":3,"ok_key-1":4}}`, `{"result":{"a.b":0,"":0,"x y":0,"ok_key-1":0}}`,
			[]string{`changed result[""] 2 0`, `changed result["a.b"] 1 0`, `changed result.ok_key-1 4 0`, `changed result["x y"] 3 0`}},
		{"escaped strings equal", `{"result":"\u00e9\/"}`, `{"result":"é/"}`, nil},
		{"escaped keys equal", `{"result":{"\u0061":1}}`, `{"result":{"a":1}}`, nil},
		{"escaped id ignored", `{"\u0069d":1,"result":1}`, `{"id":2,"result":1}`, nil},
		{"duplicate key last wins", `{"result":{"a":1,"a":2}}`, `{"result":{"a":2}}`, nil},
		{"nested", `{"result":{"a":{"b":{"c":[{"d":1}]}}}}`, `{"result":{"a":{"b":{"c":[{"d":true}]}}}}`, []string{`type result.a.b.c[0].d 1 true`}},
		{"not objects", `[1,2]`, `[1,3]`, []string{`changed [1] 2 3`}},
		{"root type", `[1]`, `{"a":1}`, []string{`type $ [1] {"a":1}`}},
	}
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Compare([]byte(tt.exp), []byte(tt.act))
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			check(t, got, tt.want)
			if (got == nil) != (tt.want == nil) {
				t.Errorf("got nil %v, want nil %v", got == nil, tt.want == nil)
			}
		})
	}
}

func TestCompareNumbers(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{"1", "1.0", true},
		{"1", "1e0", true},
		{"100", "1e2", true},
		{"100", "1E+2", true},
		{"0.5", "5e-1", true},
		{"0.50", "0.5", true},
		{"-0", "0", true},
		{"0.0", "0e10", true},
		{"-1", "1", false},
		{"12345678901234567890", "12345678901234567890.0", true},
		{"12345678901234567890", "12345678901234567891", false},
		{"9007199254740993", "9007199254740992", false}, // equal as float64
		{"1.000000000000000000001", "1", false},
		{"1e400", "10e399", true},
		{"1e400", "1e401", false},
		{"0.1", "0.10000000000000001", false},
	}
	v, _ := New()
	for _, tt := range tests {
		t.Run(tt.a+"_"+tt.b, func(t *testing.T) {
			got, err := v.Compare([]byte(`{"result":`+tt.a+`}`), []byte(`{"result":`+tt.b+`}`))
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != tt.equal {
				t.Errorf("got %q, want equal %v", render(got), tt.equal)
			}
		})
	}
}

func TestCompareIgnore(t *testing.T) {
	exp := `{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s","version":"1.0"},"timestamp":1,
		"content":[{"type":"text","text":"a","annotations":{"p":1},"meta":{"timestamp":5}},{"type":"text","text":"b"}],
		"a.b":{"x":1},"list":[1,2,3]}}`
	act := `{"jsonrpc":"2.0","id":9,"result":{"serverInfo":{"name":"s","version":"2.0"},"timestamp":2,
		"content":[{"type":"text","text":"a","annotations":{"p":2},"meta":{"timestamp":6}},{"type":"text","text":"b","annotations":{}}],
		"a.b":{"x":2},"list":[1,2,4,5]}}`
	tests := []struct {
		name   string
		ignore []string
		want   []string
	}{
		{"nothing", nil, []string{
			`changed result["a.b"].x 1 2`,
			`changed result.content[0].annotations.p 1 2`,
			`changed result.content[0].meta.timestamp 5 6`,
			`added result.content[1].annotations  {}`,
			`changed result.list[2] 3 4`,
			`added result.list[3]  5`,
			`changed result.serverInfo.version "1.0" "2.0"`,
			`changed result.timestamp 1 2`,
		}},
		{"exact paths", []string{"result.serverInfo.version", `$.result["a.b"]`}, []string{
			`changed result.content[0].annotations.p 1 2`,
			`changed result.content[0].meta.timestamp 5 6`,
			`added result.content[1].annotations  {}`,
			`changed result.list[2] 3 4`,
			`added result.list[3]  5`,
			`changed result.timestamp 1 2`,
		}},
		{"any index", []string{"result.content[*].annotations"}, []string{
			`changed result["a.b"].x 1 2`,
			`changed result.content[0].meta.timestamp 5 6`,
			`changed result.list[2] 3 4`,
			`added result.list[3]  5`,
			`changed result.serverInfo.version "1.0" "2.0"`,
			`changed result.timestamp 1 2`,
		}},
		{"any depth", []string{"**.timestamp", "**.annotations"}, []string{
			`changed result["a.b"].x 1 2`,
			`changed result.list[2] 3 4`,
			`added result.list[3]  5`,
			`changed result.serverInfo.version "1.0" "2.0"`,
		}},
		{"one key wildcard", []string{"result.*.version", "result.*.x"}, []string{
			`changed result.content[0].annotations.p 1 2`,
			`changed result.content[0].meta.timestamp 5 6`,
			`added result.content[1].annotations  {}`,
			`changed result.list[2] 3 4`,
			`added result.list[3]  5`,
			`changed result.timestamp 1 2`,
		}},
		{"star is not an index", []string{"result.list.*"}, []string{
			`changed result["a.b"].x 1 2`,
			`changed result.content[0].annotations.p 1 2`,
			`changed result.content[0].meta.timestamp 5 6`,
			`added result.content[1].annotations  {}`,
			`changed result.list[2] 3 4`,
			`added result.list[3]  5`,
			`changed result.serverInfo.version "1.0" "2.0"`,
			`changed result.timestamp 1 2`,
		}},
		{"index and added elements", []string{"result.list[2]", "result.list[3]", "result.content[0]", "result.content[1].annotations"}, []string{
			`changed result["a.b"].x 1 2`,
			`changed result.serverInfo.version "1.0" "2.0"`,
			`changed result.timestamp 1 2`,
		}},
		{"depth in the middle", []string{"result.**.p", "result.**[3]"}, []string{
			`changed result["a.b"].x 1 2`,
			`changed result.content[0].meta.timestamp 5 6`,
			`added result.content[1].annotations  {}`,
			`changed result.list[2] 3 4`,
			`changed result.serverInfo.version "1.0" "2.0"`,
			`changed result.timestamp 1 2`,
		}},
		{"whole result", []string{"result"}, nil},
		{"everything", []string{"**"}, nil},
		{"root", []string{"$"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := New(WithIgnore(tt.ignore...))
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.Compare([]byte(exp), []byte(act))
			if err != nil {
				t.Fatal(err)
			}
			check(t, got, tt.want)
		})
	}
}

func TestCompareErrorData(t *testing.T) {
	v, err := New(WithIgnore("error.data"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.Compare(
		[]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom","data":{"trace":"a"}}}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom","data":{"trace":"b"}}}`))
	if err != nil || got != nil {
		t.Fatalf("got %q, %v; want nil, nil", render(got), err)
	}
}

func TestCompareNotJSON(t *testing.T) {
	tests := []struct {
		name, exp, act, side string
	}{
		{"expected", `{"result":`, `{"result":1}`, "expected"},
		{"actual", `{"result":1}`, `{"result":[1,]}`, "actual"},
		{"empty", ``, `{}`, "expected"},
		{"garbage", `{}`, `nope`, "actual"},
	}
	v, _ := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Compare([]byte(tt.exp), []byte(tt.act))
			if !errors.Is(err, ErrNotJSON) || !strings.Contains(err.Error(), tt.side) {
				t.Fatalf("got %v, want ErrNotJSON naming the %s message", err, tt.side)
			}
			if got != nil {
				t.Errorf("got differences %q, want none", render(got))
			}
		})
	}
}

func TestCompareCap(t *testing.T) {
	var e, a strings.Builder
	e.WriteString(`{"result":[`)
	a.WriteString(`{"result":[`)
	for i := range 250 {
		if i > 0 {
			e.WriteByte(',')
			a.WriteByte(',')
		}
		fmt.Fprintf(&e, "%d", i)
		fmt.Fprintf(&a, "%d", -i-1)
	}
	e.WriteString(`]}`)
	a.WriteString(`,7]}`)
	v, _ := New()
	got, err := v.Compare([]byte(e.String()), []byte(a.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxDifferences+1 {
		t.Fatalf("got %d differences, want %d", len(got), MaxDifferences+1)
	}
	last := got[len(got)-1]
	if last.Kind != DiffTruncated || last.Path != "" || string(last.Actual) != "151" {
		t.Errorf("got last %+v, want truncated with 151 left out", last)
	}
	if got[99].Path != "result[99]" {
		t.Errorf("got 100th path %q, want result[99]", got[99].Path)
	}
	b, _ := json.Marshal(last)
	if string(b) != `{"path":"","actual":151,"kind":"truncated"}` {
		t.Errorf("got JSON %s", b)
	}
}

func TestFastPath(t *testing.T) {
	tests := []struct {
		name, e, a string
		same       bool
	}{
		{"same", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{"jsonrpc":"2.0","id":2,"result":{"a":1}}`, true},
		{"spaces between members", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{ "id" : 2 , "result" : {"a":1}, "jsonrpc":"2.0"}`, true},
		{"value differs", `{"id":1,"result":{"a":1}}`, `{"id":1,"result":{"a":2}}`, false},
		{"order differs", `{"result":1,"x":2}`, `{"x":2,"result":1}`, false},
		{"extra member", `{"result":1}`, `{"result":1,"x":2}`, false},
		{"missing member", `{"result":1,"x":2}`, `{"result":1}`, false},
		{"escaped key", `{"\u0072esult":1}`, `{"\u0072esult":1}`, false},
		{"too many members", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1}`, `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1}`, false},
		{"array", `[1]`, `[1]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameMembers([]byte(tt.e), []byte(tt.a)); got != tt.same {
				t.Errorf("got %v, want %v", got, tt.same)
			}
		})
	}
}

func TestCompareEqualDoesNotAllocate(t *testing.T) {
	v, _ := New(WithIgnore("**.timestamp"))
	e, a := []byte(benchExpected), []byte(benchSameOtherID)
	allocs := testing.AllocsPerRun(100, func() {
		if d, err := v.Compare(e, a); d != nil || err != nil {
			t.Fatalf("got %v, %v", d, err)
		}
	})
	if allocs != 0 {
		t.Errorf("got %v allocations, want 0", allocs)
	}
}

func TestNewBadPattern(t *testing.T) {
	_, err := New(WithIgnore("result.ok", "result..x"))
	if !errors.Is(err, ErrPattern) || !strings.Contains(err.Error(), `"result..x"`) {
		t.Fatalf("got %v, want ErrPattern naming \"result..x\"", err)
	}
}

func TestBody(t *testing.T) {
	tests := []struct {
		name, doc, body string
		ok              bool
	}{
		{"leading", `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `"result":{"a":1}`, true},
		{"trailing", `{"result":{"a":1},"jsonrpc":"2.0","id":1}`, `"result":{"a":1}`, true},
		{"both ends", ` { "id" : "x" , "result":[1], "x":2 , "jsonrpc" : "2.0" } `, `"result":[1], "x":2`, true},
		{"middle stays", `{"result":1,"id":1,"x":2}`, `"result":1,"id":1,"x":2`, true},
		{"only envelope", `{"jsonrpc":"2.0","id":1}`, ``, true},
		{"duplicate ids", `{"id":1,"id":2}`, ``, true},
		{"empty", `{}`, ``, true},
		{"object id kept", `{"result":1,"id":{"a":1}}`, `"result":1,"id":{"a":1}`, true},
		{"escaped string id kept", `{"result":1,"id":"a\"b"}`, `"result":1,"id":"a\"b"`, true},
		{"escaped key not envelope", `{"result":1,"x\"id":2}`, `"result":1,"x\"id":2`, true},
		{"escaped leading key", `{"\u0069d":1,"result":1}`, `"\u0069d":1,"result":1`, true},
		{"null id", `{"result":1,"id":null}`, `"result":1`, true},
		{"negative id", `{"result":1,"id":-1.5e3}`, `"result":1`, true},
		{"not object", `[1]`, ``, false},
		{"unclosed", `{"result":1`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e, ok := body([]byte(tt.doc))
			if ok != tt.ok {
				t.Fatalf("got ok %v, want %v", ok, tt.ok)
			}
			if ok && tt.doc[s:e] != tt.body {
				t.Errorf("got %q, want %q", tt.doc[s:e], tt.body)
			}
		})
	}
}

// A multi-round result's requestState is opaque: a server makes it anew
// for each request, so it is never compared.
func TestRequestStateNotCompared(t *testing.T) {
	v := mustNew(t)
	rec := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"nonce-a","inputRequests":{"k":{}}}}`)
	live := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"nonce-b","inputRequests":{"k":{}}}}`)
	if d, err := v.Compare(rec, live); err != nil || len(d) != 0 {
		t.Errorf("got %v, %v; want no difference", d, err)
	}
	other := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"nonce-b","inputRequests":{"j":{}}}}`)
	if d, _ := v.Compare(rec, other); len(d) == 0 {
		t.Error("a different input request passed")
	}
}
