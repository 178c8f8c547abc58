package match

import (
	"errors"
	"strings"
	"testing"
)

const rawCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m7"},"list":[1,2]}}`

func TestParse(t *testing.T) {
	tests := []struct {
		spec     string
		wantKind string
		wantErr  string // a substring; "" for no error
	}{
		{"12", KindSeq, ""},
		{" 0 ", KindSeq, ""},
		{"-1", "", "0 or more"},
		{"ping", KindMethod, ""},
		{"tools/call", KindMethod, ""},
		{"notifications/initialized", KindMethod, ""},
		{`method == "ping"`, KindExpr, ""},
		{"seq", KindExpr, "expected bool"}, // a variable, not a method; not a bool
		{"rpc.discover", KindMethod, ""},
		{"params.name", KindExpr, ""},
		{"true", KindExpr, ""},
		{"seq > 3 && dir == \"c2s\"", KindExpr, ""},
		{"", "", "empty"},
		{"method ==", "", "column 9"},
		{"foo == 1", "", "unknown name foo"},
		{`method == 1 +`, "", "column"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := Parse(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrBadCondition) {
					t.Fatalf("got error %v, want one wrapping ErrBadCondition containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if c.Kind() != tt.wantKind {
				t.Errorf("got kind %s, want %s", c.Kind(), tt.wantKind)
			}
			if c.Spec() != strings.TrimSpace(tt.spec) {
				t.Errorf("got spec %q, want %q", c.Spec(), strings.TrimSpace(tt.spec))
			}
		})
	}
}

func TestParseExpr(t *testing.T) {
	tests := []struct {
		spec    string
		wantErr string
	}{
		{`method == "ping"`, ""},
		{"true", ""},
		{"12", "expected bool"},
		{"tools/call", "unknown name tools"},
		{"  ", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := ParseExpr(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrBadCondition) {
					t.Fatalf("got error %v, want one wrapping ErrBadCondition containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.Kind() != KindExpr {
				t.Fatalf("got %v, %v; want an expression", c, err)
			}
		})
	}
}

var (
	call   = Msg{Seq: 7, Session: "s1", Dir: "c2s", Kind: "request", Method: "tools/call", ID: "7", Raw: []byte(rawCall)}
	bare   = Msg{Seq: 3, Dir: "c2s", Kind: "notification", Method: "ping", Raw: []byte(`{"jsonrpc":"2.0","method":"ping"}`)}
	broken = Msg{Seq: 4, Method: "ping", Raw: []byte(`{not json`)}
	answer = Msg{Seq: 9, Dir: "s2c", Kind: "error", Raw: []byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"nope"}}`)}
)

func TestMatch(t *testing.T) {
	tests := []struct {
		spec    string
		m       Msg
		want    bool
		wantErr bool
	}{
		{"7", call, true, false},
		{"8", call, false, false},
		{"tools/call", call, true, false},
		{"ping", call, false, false},
		{`method == "tools/call" && params.arguments.message == "m7"`, call, true, false},
		{`params.arguments.message == "m8"`, call, false, false},
		{`session == "s1" && dir == "c2s" && kind == "request"`, call, true, false},
		{`id == 7`, call, true, false},
		{`id == "a"`, answer, true, false},
		{`error.code == -32601`, answer, true, false},
		{`result == nil`, answer, true, false},
		{`params.list[1] == 2`, call, true, false},
		{`len(params.list) == 2`, call, true, false},
		// missing members are nil, never a crash
		{`params.arguments.message == "m7"`, bare, false, false},
		{`params.arguments.message == nil`, bare, true, false},
		{`error.code == -32601`, call, false, false},
		{`params.list[1] == 2`, bare, false, false},
		{`params.arguments.message == "m7"`, broken, false, false},
		{`seq == 4`, broken, true, false},
		// run-time errors: no match, and an error
		{`params.list[5] == 1`, call, false, true},
		{`params.arguments.message + 1 > 0`, call, false, true},
		{`params.name`, call, false, true}, // a string, not a bool
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := Parse(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Match(tt.m)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("Match(seq %d): got %v, %v; want %v, error %v", tt.m.Seq, got, err, tt.want, tt.wantErr)
			}
			var e Env
			e.Reset(tt.m)
			if got2, err2 := c.MatchEnv(&e); got2 != got || (err2 != nil) != (err != nil) {
				t.Errorf("MatchEnv(seq %d): got %v, %v; want Match's %v, %v", tt.m.Seq, got2, err2, got, err)
			}
		})
	}
}

// TestEnvReuse: one Env serves several conditions, and Reset forgets the
// previous message's decoded values.
func TestEnvReuse(t *testing.T) {
	a, err := Parse(`params.arguments.message == "m7"`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(`id == 7`)
	if err != nil {
		t.Fatal(err)
	}
	var e Env
	e.Reset(call)
	for _, c := range []*Condition{a, b} {
		if ok, err := c.MatchEnv(&e); !ok || err != nil {
			t.Errorf("%s on call: got %v, %v; want true", c.Spec(), ok, err)
		}
	}
	e.Reset(bare)
	if e.Msg().Seq != bare.Seq {
		t.Errorf("got seq %d, want %d", e.Msg().Seq, bare.Seq)
	}
	for _, c := range []*Condition{a, b} {
		if ok, err := c.MatchEnv(&e); ok || err != nil {
			t.Errorf("%s on bare: got %v, %v; want false", c.Spec(), ok, err)
		}
	}
}
