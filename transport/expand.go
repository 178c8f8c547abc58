package transport

import (
	"fmt"
	"net/http"
	"os"
	"strings"
)

// ExpandHeader replaces each ${NAME} in a header value with the variable
// NAME from the environment, so that secrets stay out of config files:
// "Bearer ${TOKEN}". It fails when a variable is unset or a reference is
// malformed; the error never contains a variable's value.
func ExpandHeader(s string) (string, error) { return expandVars(s, os.LookupEnv, nil) }

// HeaderSecrets returns the values that expanding h would take from the
// environment (each ${NAME} of each value), for the caller to hide from
// everything it shows: they are secrets, as a token usually is. It fails
// as ExpandHeader does.
func HeaderSecrets(h http.Header) ([]string, error) {
	var secrets []string
	for k, vs := range h {
		for _, v := range vs {
			if _, err := expandVars(v, os.LookupEnv, func(x string) { secrets = append(secrets, x) }); err != nil {
				return nil, fmt.Errorf("header %s: %w", k, err)
			}
		}
	}
	return secrets, nil
}

// expandVars expands the ${NAME} of s with lookup, and passes each value
// taken to took (when not nil).
func expandVars(s string, lookup func(string) (string, bool), took func(string)) (string, error) {
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
		if took != nil && v != "" {
			took(v)
		}
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
