package validator

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// CheckSame gives Check's verdict for every answer the session's actor
// takes as the recorded one with only its id changed: the pairs are made
// as the actor finds them (the recorded answer's parse rebased onto the
// live bytes, jsonrpc.Message.Rebase), over generated answers (the id
// first, in the middle or last; few or many members; escaped keys;
// results, errors, nested values, numbers, whitespace) and generated ids
// (integers, negative, huge, strings), under every mode, ignore paths,
// normalisers, tolerances and rules.
func TestCheckSameAsCheckGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	validators := map[string][]Option{
		"exact":        {WithMode(Exact)},
		"structural":   {WithMode(Structural)},
		"schema":       {WithMode(Schema)},
		"partial":      {WithRules(Rule{Scope: Scope{Always: true}, Mode: Partial, RequiredFields: []string{"result.a", "id"}})},
		"ignore":       {WithMode(Exact), WithIgnore("result.a", "result.*.b")},
		"normalize":    {WithMode(Exact), WithNormalize("uuid", "timestamp", "ids")},
		"tolerance":    {WithMode(Exact), WithTolerance(0.5, 0.1)},
		"retry rule":   {WithRules(Rule{Scope: Scope{Always: true}, Mode: Exact, OnFailure: OnFailureRetry, MaxRetries: 2})},
		"method rule":  {WithRules(Rule{Scope: Scope{Method: "tools/call"}, Mode: Structural, IgnoreFields: []string{"result.x"}})},
		"disabled":     {WithMode(Exact), WithDisabled()},
		"struct+norm":  {WithMode(Structural), WithNormalize("uuid")},
		"exact+ignore": {WithRules(Rule{Scope: Scope{Always: true}, Mode: Exact, IgnoreFields: []string{"error.message"}})},
	}
	vs := make(map[string]*Validator, len(validators))
	for name, opts := range validators {
		vs[name] = mustNew(t, opts...)
	}
	ids := []string{`0`, `1`, `-1`, `7`, `9007199254740993`, `18446744073709551616`, `-9223372036854775809`, `"1"`, `"a"`, `""`, `"req-42"`}
	values := []string{`1`, `-0`, `1.5`, `1e2`, `1.0`, `0.1`, `12345678901234567890`, `true`, `null`, `"x"`, `""`, `"2026-11-28T08:00:00Z"`,
		`"123e4567-e89b-12d3-a456-426614174000"`, `"\u00e9\n"`, `[]`, `{}`, `[1,"b",{"b":2}]`, `{"b":{"c":[null]}}`}
	keys := []string{"a", "b", "x", "tools", "content", "isError", "n\\u0061me", "_meta", "a b"}
	value := func() string {
		v := values[rng.IntN(len(values))]
		if rng.IntN(4) == 0 {
			return fmt.Sprintf(`{"b":%s,"a":%s}`, v, values[rng.IntN(len(values))])
		}
		return v
	}
	object := func(n int) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteString(", "[:1+rng.IntN(2)])
			}
			fmt.Fprintf(&b, `"%s":%s`, keys[rng.IntN(len(keys))], value())
		}
		b.WriteByte('}')
		return b.String()
	}
	answer := func() string {
		var members []string
		if rng.IntN(5) == 0 {
			members = append(members, `"error":{"code":-32601,"message":"no such `+fmt.Sprint(rng.IntN(3))+`"}`)
		} else {
			members = append(members, `"result":`+object(rng.IntN(12)))
		}
		for i := range rng.IntN(10) { // members beside result: many, so the fast paths give up
			members = append(members, fmt.Sprintf(`"x%d":%s`, i, value()))
		}
		id := `"id":` + ids[rng.IntN(len(ids))]
		at := rng.IntN(len(members) + 1)
		members = append(members[:at], append([]string{id}, members[at:]...)...)
		at = rng.IntN(len(members) + 1)
		members = append(members[:at], append([]string{`"jsonrpc":"2.0"`}, members[at:]...)...)
		sep := []string{",", ", ", " ,\n"}[rng.IntN(3)]
		return "{" + strings.Join(members, sep) + "}"
	}
	const cases = 3000
	checked := 0
	for range cases {
		exp := answer()
		rec, err := jsonrpc.Parse([]byte(exp))
		if err != nil || rec.Kind == jsonrpc.KindInvalid {
			continue
		}
		live := ids[rng.IntN(len(ids))]
		act := strings.Replace(exp, `"id":`+string(rec.ID), `"id":`+live, 1)
		if _, ok := rec.Rebase([]byte(act)); !ok {
			continue // the actor would compare it
		}
		checked++
		s := Subject{Method: "tools/call", Kind: "request"}
		for name, v := range vs {
			want, werr := v.Check(s, []byte(exp), []byte(act))
			got, gerr := v.CheckSame(s, []byte(exp), []byte(act))
			if fmt.Sprint(got, gerr) != fmt.Sprint(want, werr) {
				t.Errorf("%s:\nrecorded %s\nlive     %s\nCheckSame gave %+v, %v; Check %+v, %v", name, exp, act, got, gerr, want, werr)
			}
		}
	}
	if checked < cases/2 {
		t.Fatalf("only %d of %d generated answers were taken as recorded; want at least half", checked, cases)
	}
}
