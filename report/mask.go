package report

import (
	"encoding/json"
	"slices"

	"github.com/replayctl/replayctl/tape"
)

// MaskDifferences masks the credentials in differences (see Redact); ds
// itself when nothing is masked (the slice is copied otherwise).
func MaskDifferences(ds []Difference) []Difference {
	var out []Difference
	for i, d := range ds {
		x := d
		if tape.SecretPath(d.Path) {
			x.Expected, x.Actual = maskedValue(d.Expected), maskedValue(d.Actual)
		} else {
			x.Expected, x.Actual = tape.Mask(d.Expected), tape.Mask(d.Actual)
		}
		if !sameBytes(x.Expected, d.Expected) || !sameBytes(x.Actual, d.Actual) {
			if out == nil {
				out = slices.Clone(ds)
			}
			out[i] = x
		}
	}
	if out == nil {
		return ds
	}
	return out
}

var maskedJSON = json.RawMessage(`"` + tape.Masked + `"`)

// maskedValue is "[redacted]" for a value, absent and null as they are.
func maskedValue(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return v
	}
	return maskedJSON
}
