package replay

import (
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transformer"
)

// restoreEnv reads which environment variables a redaction took out of
// the tape (its header's tape.EnvTag) and looks them up: the values the
// engine puts back into client messages at send time (their env
// markers). The values are secrets. Only the tape's header is read. A
// variable that is not set is left out: the engine warns when a message
// it sends has its marker (a marker only in the server's answers needs
// no value).
func restoreEnv(src tape.Source, opts []tape.Option) (map[string]string, error) {
	r, err := tape.OpenSource(src, opts...)
	if err != nil {
		return nil, err
	}
	var values map[string]string
	names := tape.EnvNames(r.Header())
	r.Close()
	for _, name := range names {
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			continue
		}
		if values == nil {
			values = map[string]string{}
		}
		values[name] = v
	}
	return values, nil
}

// shortSecretWarnings say, once for each, which secrets are too short to
// be looked for inside other text (tape.ShortSecret): those of the
// config's ${env.NAME} and of the tape's restored variables by name,
// those of the target's headers and URL together; never a value.
func shortSecretWarnings(rules *transformer.Rules, restored map[string]string, target []string) []string {
	vars := map[string]string{}
	if rules != nil {
		vars = rules.SecretVars()
	}
	maps.Copy(vars, restored)
	var names []string
	for name, v := range vars {
		if tape.ShortSecret(v) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []string
	for _, name := range names {
		out = append(out, fmt.Sprintf("$%s is shorter than %d bytes: it is hidden only where it is a whole value, not inside other text (which it would wipe out); use a longer secret", name, tape.MinTextSecretLen))
	}
	if slices.ContainsFunc(target, tape.ShortSecret) {
		out = append(out, fmt.Sprintf("a credential of the target (a header or the URL) is shorter than %d bytes: it is hidden only where it is a whole value, not inside other text", tape.MinTextSecretLen))
	}
	return out
}
