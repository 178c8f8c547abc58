package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/replayctl/replayctl/jsonrpc"
)

func FuzzStandardHeaders(f *testing.F) {
	for _, s := range []string{capCallRegion, capCallProgress, capRound2, task26Get, capProgress, capInitialize,
		call(`"deploy"`, `{"target":{"region":"a\u0000b","zone":{"id":1e300}},"dryRun":true,"count":-0.0}`),
		call(`"test_x_mcp_header"`, `{"region":"=?base64?x?="}`), `[` + capDiscover + `]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`} {
		f.Add([]byte(s), "", []byte(nestedTools))
		f.Add([]byte(s), V20260728, []byte(capToolsListRes))
	}
	f.Fuzz(func(t *testing.T, raw []byte, version string, toolsList []byte) {
		var tools ToolHeaders
		_ = tools.Learn(toolsList)
		m, err := jsonrpc.Parse(raw)
		if err != nil {
			return
		}
		h := StandardHeaders(version, m, &tools)
		for k, v := range h {
			if k != http.CanonicalHeaderKey(k) || len(v) != 1 {
				t.Fatalf("header %q = %q: want a canonical key with one value", k, v)
			}
			if k == HeaderMethod {
				continue // the method as it is
			}
			if !safeHeaderValue(v[0]) {
				t.Fatalf("header %s: %q is not safe in HTTP", k, v[0])
			}
			if _, ok := DecodeHeaderValue(v[0]); !ok {
				t.Fatalf("header %s: %q does not decode", k, v[0])
			}
		}
		if h != nil && h.Get(HeaderMethod) != m.Method {
			t.Fatalf("Mcp-Method %q, want %q", h.Get(HeaderMethod), m.Method)
		}
		_ = CheckStandardHeaders(h, m, &tools)
		// And headers that may be anything.
		odd := http.Header{}
		for i, k := range []string{HeaderProtocolVersion, HeaderMethod, HeaderName, "Mcp-Param-Region", "Mcp-Param-Zone-Id", "Mcp-Param-Count"} {
			odd.Set(k, []string{version, m.Method, string(toolsList), version, "=?base64?" + version + "?=", "7.0"}[i])
		}
		if err := CheckStandardHeaders(odd, m, &tools); err != nil {
			var he *HeaderError
			if !errors.As(err, &he) || he.Header == "" {
				t.Fatalf("CheckStandardHeaders: %v, want a *HeaderError naming a header", err)
			}
		}
	})
}

// safeHeaderValue reports whether v is visible ASCII and inner spaces:
// what EncodeHeaderValue promises.
func safeHeaderValue(v string) bool {
	if v != strings.Trim(v, " \t") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

func FuzzEncodeHeaderValue(f *testing.F) {
	for _, s := range []string{"", "Zürich", " x", "=?base64?a?=", "a\r\nb", "plain", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EncodeHeaderValue(s)
		if !safeHeaderValue(e) {
			t.Fatalf("EncodeHeaderValue(%q) = %q, not safe", s, e)
		}
		if d, ok := DecodeHeaderValue(e); !ok || d != s {
			t.Fatalf("DecodeHeaderValue(%q) = %q, %v; want %q", e, d, ok, s)
		}
	})
}

func FuzzSetRequestState(f *testing.F) {
	for _, s := range []string{`{}`, `{"requestState":"a"}`, `{ "a":1 , "requestState" : "x" , "b":[{}] }`,
		`{"request\u0053tate":1}`, `{"requestState":"a","requestState":"b"}`, `[1]`, `{"a":`, ``} {
		f.Add([]byte(s), "round=2;name=Ada")
		f.Add([]byte(s), "")
	}
	f.Fuzz(func(t *testing.T, params []byte, state string) {
		orig := string(params)
		got, err := SetRequestState(params, state)
		if string(params) != orig {
			t.Fatal("the input changed")
		}
		if err != nil {
			return
		}
		var before map[string]json.RawMessage
		if json.Unmarshal(params, &before) != nil && len(params) != 0 {
			return // bytes the scanner let through; nothing more to promise
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("SetRequestState(%s, %q) = %s: not a JSON object: %v", params, state, got, err)
		}
		if s, ok := RequestState(got); state != "" && utf8.ValidString(state) && (s != state || !ok) {
			t.Fatalf("RequestState(%s) = %q, %v; want %q", got, s, ok, state)
		}
		for k, v := range before {
			if k == "requestState" {
				continue
			}
			if string(after[k]) != string(v) {
				t.Fatalf("member %q changed: %s → %s", k, v, after[k])
			}
		}
	})
}
