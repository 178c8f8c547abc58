package jsonrpc

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/internal/jsonscan"
)

// strictCases are objects for strictScan.scan's tests and FuzzStrictScan's
// seeds: messages of each kind, every error classify and the grammar
// give, escaped names, white space, duplicates.
var strictCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message 1"}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Echo: message 1"}]}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`,
	`{"method":"ping","id":"a-1","jsonrpc":"2.0"}`,
	" {\n \"jsonrpc\" : \"2.0\" , \"id\" : 3 ,\"result\": {} }\n",
	`{"json\u0072pc":"2.0","\u0069d":4,"result":1}`,
	`{"jsonrpc":"2.0","id":4,"result":1,"x":{"id":9},"jsonrpcx":1,"i":2,"ids":3}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"tools\/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"\u00e9t\u00e9"}`,
	`{}`, `{ }`, `{`, `{"`, `{"jsonrpc"`, `{"jsonrpc":`, `{"jsonrpc":"2.0"`, `{"jsonrpc":"2.0",`,
	`{"jsonrpc":"2.0","id":1,"result":[1,,2]}`,
	`{"jsonrpc":"2.0","id":1,"result":1} x`,
	`{"id":1,"method":"m"}`,
	`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"jsonrpc":2.0,"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"m"}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"error":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","result":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","error":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":3}`,
	`{"jsonrpc":"2.0","id":1,"method":"a\x"}`,
	`{"jsonrpc":"2.0","method":"m","params":1}`,
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","error":{"code":1}}`,
	`{"jsonrpc":"2.0","id":1,"error":"bad"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":1,"result":[}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"m","method":"n"}`,
	`{"jsonrpc":"2.0","id":1,"\u0069d":2,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"x\u0000":[}`,
	`{"jsonrpc":"2.0","id":1,"result":"a` + "\x01" + `"}`,
	`{"jsonrpc":"2.0","id":-0.5e+3,"result":1}`,
	`{"jsonrpc":"2.0","id":01,"result":1}`,
	`{"jsonrpc" "2.0"}`, `{"jsonrpc":"2.0" "id":1}`, `{1:2}`, `{"a":1,}`,
}

func TestStrictScanAgrees(t *testing.T) {
	for _, raw := range strictCases {
		t.Run(fmt.Sprintf("%.40s", raw), func(t *testing.T) {
			checkStrictScan(t, []byte(raw))
		})
	}
}

// TestStrictScanRecognisesOnlyItsNames: a name that starts as one of
// the members' names but is not it, or is it with an escape, is any
// other member, or the member itself decoded.
func TestStrictScanRecognisesOnlyItsNames(t *testing.T) {
	tests := []struct {
		raw, id, result string
	}{
		{`{"jsonrpc":"2.0","idx":7,"id":1,"result":2}`, `1`, `2`},
		{`{"jsonrpc":"2.0","i":7,"id":1,"results":3,"result":2}`, `1`, `2`},
		{`{"jsonrpc":"2.0","\u0069d":1,"resul\u0074":2}`, `1`, `2`},
		{`{"jsonrpc":"2.0","id":1,"errors":{},"result":2}`, `1`, `2`},
	}
	for _, tt := range tests {
		m, err := ParseStrict([]byte(tt.raw))
		if err != nil || string(m.ID) != tt.id || string(m.Result()) != tt.result {
			t.Errorf("ParseStrict(%s) = id %s result %s, %v; want %s %s, nil", tt.raw, m.ID, m.Result(), err, tt.id, tt.result)
		}
		checkStrictScan(t, []byte(tt.raw))
	}
}

// FuzzStrictScan compares the one-pass parse (strictScan.scan, behind
// ParseStrict and ParseStrictAt) with the member callback's
// (parseObject over jsonscan.MembersValidAt) on any input: the same
// message, to its unexported spans, the same end, the same error.
func FuzzStrictScan(f *testing.F) {
	for _, s := range strictCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkStrictScan(t, raw)
	})
}

// checkStrictScan: ParseStrict of raw and ParseStrictAt of raw inside a
// larger document give what the callback's parse gives.
func checkStrictScan(t *testing.T, raw []byte) {
	t.Helper()
	// ParseStrict of anything but an object is as it was.
	if i := jsonscan.SkipSpace(raw, 0); i < len(raw) && raw[i] == '{' {
		got, err := ParseStrict(raw)
		want, werr := parse(raw, true)
		if !sameParse(got, want, err, werr) {
			t.Fatalf("ParseStrict(%q) = %+v, %v\nthe callback's: %+v, %v", raw, got, err, want, werr)
		}
	}
	for _, around := range [][2]string{{"", ""}, {`{"msg":`, `,"x":1}`}, {" ", "}"}} {
		doc := append(append([]byte(around[0]), raw...), around[1]...)
		i := len(around[0])
		got, end, err := ParseStrictAt(doc, i)
		want, wend, werr := parseObject(doc, i, true, true)
		if end != wend || !sameParse(got, want, err, werr) {
			t.Fatalf("ParseStrictAt(%q, %d) = %+v, %d, %v\nthe callback's: %+v, %d, %v", doc, i, got, end, err, want, wend, werr)
		}
	}
}

func sameParse(a, b Message, aerr, berr error) bool {
	if (aerr == nil) != (berr == nil) || aerr != nil && (aerr.Error() != berr.Error() || !errors.Is(aerr, ErrInvalid)) {
		return false
	}
	return reflect.DeepEqual(a, b) && len(a.Raw) == len(b.Raw) && (len(a.Raw) == 0 || &a.Raw[0] == &b.Raw[0])
}

// TestKnownMember: each name the parse records is recognised, whatever
// follows it (the word compare and the short one), and names that only
// start or end like one are not.
func TestKnownMember(t *testing.T) {
	for which := memVersion; which < memCount; which++ {
		name := memberNames[which]
		for pad := range 12 {
			tail := strings.Repeat(" ", pad)
			doc := []byte(`"` + name + `"` + tail)
			if got, end := knownMember(doc, 0); got != which || end != len(name)+2 {
				t.Errorf("knownMember(%q) = %d, %d; want %d, %d", doc, got, end, which, len(name)+2)
			}
			for _, other := range []string{name + "x", name[:len(name)-1], "x" + name, name[:1] + "\\" + name[1:], strings.ToUpper(name)} {
				doc := []byte(`"` + other + `"` + tail)
				if got, end := knownMember(doc, 0); got != memOther || end != 0 {
					t.Errorf("knownMember(%q) = %d, %d; want any other, 0", doc, got, end)
				}
			}
		}
	}
}
