package report

import (
	"slices"

	"github.com/replayctl/replayctl/tape"
)

// MaskDifferences masks the credentials in differences (see Redact and
// tape.MaskDifference); ds itself when nothing is masked (the slice is
// copied otherwise).
func MaskDifferences(ds []Difference) []Difference {
	var out []Difference
	for i, d := range ds {
		x := d
		x.Expected, x.Actual = tape.MaskDifference(d.Path, d.Expected, d.Actual)
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
