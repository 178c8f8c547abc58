package validator

import "testing"

func TestCompareRedacted(t *testing.T) {
	tests := []struct {
		name     string
		exp, act string
		want     []string
	}{
		{"key marker, any string",
			`{"result":{"content":[{"type":"text","text":"[redacted:key:string]"}]}}`,
			`{"result":{"content":[{"type":"text","text":"live value"}]}}`, nil},
		{"key marker, any number",
			`{"result":{"token":"[redacted:key:number]"}}`, `{"result":{"token":42}}`, nil},
		{"key marker, any object",
			`{"result":{"secret":"[redacted:key:object]"}}`, `{"result":{"secret":{"a":[1]}}}`, nil},
		{"key marker, another kind",
			`{"result":{"secret":"[redacted:key:object]"}}`, `{"result":{"secret":"x"}}`,
			[]string{`type result.secret "[redacted:key:object]" "x"`}},
		{"env marker inside a text",
			`{"result":{"content":[{"type":"text","text":"Echo: [redacted:env:GH]"}]}}`,
			`{"result":{"content":[{"type":"text","text":"Echo: ghp_live"}]}}`, nil},
		{"env marker, the rest of the text differs",
			`{"result":{"text":"Echo: [redacted:env:GH]"}}`, `{"result":{"text":"Said: ghp_live"}}`,
			[]string{`changed result.text "Echo: [redacted:env:GH]" "Said: ghp_live"`}},
		{"a marker only on the live side is a difference",
			`{"result":{"text":"ghp_live"}}`, `{"result":{"text":"[redacted:key:string]"}}`,
			[]string{`changed result.text "ghp_live" "[redacted:key:string]"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"exact", "structural"} {
				v, err := New(WithMode(Mode(mode)))
				if err != nil {
					t.Fatal(err)
				}
				vd, err := v.Check(Subject{Method: "tools/call", Kind: "response"}, []byte(tt.exp), []byte(tt.act))
				if err != nil {
					t.Fatal(err)
				}
				got := vd.Diffs
				want := tt.want
				if mode == "structural" && len(want) > 0 && want[0][:4] != "type" {
					want = nil // structural: strings of any text are equal
				}
				check(t, got, want)
			}
		})
	}
}
