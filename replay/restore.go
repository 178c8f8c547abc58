package replay

import (
	"os"

	"github.com/replayctl/replayctl/tape"
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
