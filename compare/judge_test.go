package compare_test

import (
	"math"
	"testing"

	"github.com/replayctl/replayctl/compare"
)

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		name              string
		raw, noise, total int
		rel, abs          float64
		wantRel, wantAbs  float64
		wantChanged       bool
	}{
		{"every answer differs, no noise", 10, 0, 10, 20, 0.03, 100, 100, true},
		{"as noisy as raw: a random id", 10, 10, 10, 20, 0.03, 0, 0, false},
		{"nothing differs", 0, 0, 10, 20, 0.03, 0, 0, false},
		{"less than the noise", 3, 7, 10, 20, 0.03, 40, 40, false},
		{"relative margin exactly met is not passed", 6, 4, 10, 20, 0.03, 20, 20, false},
		{"relative margin passed", 7, 4, 100, 20, 0.03, 300.0 / 11, 3, true},
		{"absolute margin not passed", 2, 1, 10000, 20, 0.03, 100.0 / 3, 0.01, false},
		{"absolute margin passed", 5, 1, 10000, 20, 0.03, 400.0 / 6, 0.04, true},
		{"zero margins: any excess", 1, 0, 1000, 0, 0, 100, 0.1, true},
		{"no answers", 0, 0, 0, 20, 0.03, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rel, abs, changed := compare.Judge(c.raw, c.noise, c.total, c.rel, c.abs)
			if math.Abs(rel-c.wantRel) > 1e-9 || math.Abs(abs-c.wantAbs) > 1e-9 || changed != c.wantChanged {
				t.Errorf("Judge(%d, %d, %d, %g, %g) = %g, %g, %v; want %g, %g, %v",
					c.raw, c.noise, c.total, c.rel, c.abs, rel, abs, changed, c.wantRel, c.wantAbs, c.wantChanged)
			}
		})
	}
}
