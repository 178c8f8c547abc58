package config

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written as "50ms", "1.5s" or "2m" (a bare 0
// is also accepted).
type Duration time.Duration

// UnmarshalYAML reads a duration string. (Parse does not need it: it
// decodes durations itself, to name the key in its errors; this is for
// callers that decode a Duration with yaml.Unmarshal.)
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration like 50ms or 1s", n.Line)
	}
	v, ok := parseDuration(n.Value)
	if !ok {
		return fmt.Errorf("line %d: %q is not a duration; want one like 50ms or 1s", n.Line, n.Value)
	}
	*d = v
	return nil
}

// D is the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }
