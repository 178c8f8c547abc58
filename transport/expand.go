package transport

import (
	"fmt"
	"os"
	"strings"
)

// ExpandHeader replaces each ${NAME} in a header value with the variable
// NAME from the environment, so that secrets stay out of config files:
// "Bearer ${TOKEN}". It fails when a variable is unset or a reference is
// malformed; the error never contains a variable's value.
func ExpandHeader(s string) (string, error) { return expandVars(s, os.LookupEnv) }

func expandVars(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return "", fmt.Errorf(`unterminated "${" in header value: write ${NAME}`)
		}
		name := rest[:j]
		if !validVarName(name) {
			return "", fmt.Errorf("bad variable name %q in header value: use letters, digits and _", name)
		}
		v, ok := lookup(name)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set (a header value references ${%s}); export it", name, name)
		}
		b.WriteString(v)
		s = rest[j+1:]
	}
}

func validVarName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
