package mock

import (
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

// TestIDKey: two ids have the same idKey exactly when they have the same
// jsonrpc.IDKey (the short ones packed, the long and escaped ones hashed).
func TestIDKey(t *testing.T) {
	ids := []string{
		`1`, `12`, `1.0`, `"1"`, `"a"`, `"\u0061"`, ` "a" `, `"a\u0062"`, `"ab"`, `null`, `"null"`, `-1`,
		`1234567`, `12345678`, `"123456"`, `"1234567"`, `"\u00312345678"`, `"12345678"`, `""`, `"\""`, `"\u0022"`,
		`123456789012345678901234567890`, `"x" `, "\t7\n", `7`,
	}
	for _, a := range ids {
		for _, b := range ids {
			same := jsonrpc.IDKey([]byte(a)) == jsonrpc.IDKey([]byte(b))
			if got := idKey([]byte(a)) == idKey([]byte(b)); got != same {
				t.Errorf("idKey(%s) == idKey(%s): %v, want %v (jsonrpc.IDKey)", a, b, got, same)
			}
		}
	}
}
