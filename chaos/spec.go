package chaos

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sumSlack absorbs float rounding when probabilities add up to exactly 1
// (0.1+0.2+0.7 is 1.0000000000000002).
const sumSlack = 1e-9

// ParseSpec reads a --chaos value: comma-separated kind=probability pairs,
// such as "timeout=0.05,disconnect=0.01,malformed=0.02". Space around items
// and empty items are ignored, so "" is no faults. Each probability is in
// [0, 1] and they add up to at most 1 (each message gets at most one
// fault). An error names the item and what to write instead.
func ParseSpec(s string) (map[Kind]float64, error) {
	out := make(map[Kind]float64)
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("chaos spec item %d %q: want kind=probability, such as malformed=0.02", i+1, item)
		}
		k, err := ParseKind(name)
		if err != nil {
			return nil, fmt.Errorf("chaos spec item %d %q: %w", i+1, item, err)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("chaos spec item %d %q: %s is given twice; give each kind once", i+1, item, k)
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return nil, fmt.Errorf("chaos spec item %d %q: probability %q is not a number; write a value from 0 to 1, such as 0.05", i+1, item, val)
		}
		if err := checkProbability(p); err != nil {
			return nil, fmt.Errorf("chaos spec item %d %q: %w", i+1, item, err)
		}
		out[k] = p
	}
	if err := checkFaults(out); err != nil {
		return nil, fmt.Errorf("chaos spec %q: %w", s, err)
	}
	return out, nil
}

func checkProbability(p float64) error {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return fmt.Errorf("probability %v is outside [0, 1]", p)
	}
	return nil
}

// checkFaults checks a kind → probability map (from ParseSpec or the
// config file): known kinds, probabilities in [0, 1], a sum of at most 1.
func checkFaults(faults map[Kind]float64) error {
	sum := 0.0
	for _, k := range kinds { // fixed order: the same error every time
		p, ok := faults[k]
		if !ok {
			continue
		}
		if err := checkProbability(p); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		sum += p
	}
	for k := range faults {
		if !k.valid() {
			return fmt.Errorf("unknown fault kind %q; known kinds: %s", string(k), knownList())
		}
	}
	if sum > 1+sumSlack {
		return fmt.Errorf("the probabilities add up to %.6g, more than 1 (a message gets at most one fault); lower some", sum)
	}
	return nil
}
