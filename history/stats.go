package history

import (
	"cmp"
	"math"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// bin is one value of two histograms of the same geometry: its bucket's
// highest value and the count of each.
type bin struct {
	value  int64
	ca, cb int64
}

// bins are the non-empty buckets of a and b, in increasing value.
func bins(a, b *hdrhistogram.Histogram) []bin {
	m := map[int64]*bin{}
	var order []int64
	add := func(h *hdrhistogram.Histogram, first bool) {
		for _, bar := range h.Distribution() {
			if bar.Count == 0 {
				continue
			}
			x := m[bar.To]
			if x == nil {
				x = &bin{value: bar.To}
				m[bar.To] = x
				order = append(order, bar.To)
			}
			if first {
				x.ca += bar.Count
			} else {
				x.cb += bar.Count
			}
		}
	}
	add(a, true)
	add(b, false)
	out := make([]bin, 0, len(order))
	for _, v := range order {
		out = append(out, *m[v])
	}
	slices.SortFunc(out, func(x, y bin) int { return cmp.Compare(x.value, y.value) })
	return out
}

// KS is the two-sample Kolmogorov–Smirnov test of a against b from their
// buckets: D, the largest distance between the two distribution functions,
// and p, the asymptotic probability of a D as large if both came from one
// distribution. Values in one bucket are ties, which makes the test
// conservative (p only larger). With an empty side, D is 0 and p is 1.
func KS(a, b *hdrhistogram.Histogram) (d, p float64) {
	na, nb := a.TotalCount(), b.TotalCount()
	if na == 0 || nb == 0 {
		return 0, 1
	}
	var fa, fb int64
	for _, x := range bins(a, b) {
		fa, fb = fa+x.ca, fb+x.cb
		d = math.Max(d, math.Abs(float64(fa)/float64(na)-float64(fb)/float64(nb)))
	}
	ne := float64(na) * float64(nb) / float64(na+nb)
	lambda := (math.Sqrt(ne) + 0.12 + 0.11/math.Sqrt(ne)) * d
	return d, qKS(lambda)
}

// qKS is the Kolmogorov distribution's tail, 2 Σ (-1)^(j-1) exp(-2 j² λ²).
func qKS(lambda float64) float64 {
	if lambda < 1e-3 {
		return 1
	}
	var sum, sign float64 = 0, 1
	for j := 1; j <= 100; j++ {
		term := sign * 2 * math.Exp(-2*float64(j*j)*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-12 {
			break
		}
		sign = -sign
	}
	return math.Min(math.Max(sum, 0), 1)
}

// MannWhitney is the Mann–Whitney U test of a against b from their
// buckets (values in one bucket are ties and share their mean rank): the
// probability that a value of b is larger than one of a (ties count half;
// 0.5 when neither side tends higher), and the two-sided p from the
// normal approximation with the tie correction.
func MannWhitney(a, b *hdrhistogram.Histogram) (probBGreater, p float64) {
	na, nb := float64(a.TotalCount()), float64(b.TotalCount())
	if na == 0 || nb == 0 {
		return 0.5, 1
	}
	n := na + nb
	var rank, rankB, ties float64
	for _, x := range bins(a, b) {
		t := float64(x.ca + x.cb)
		mean := rank + (t+1)/2
		rankB += mean * float64(x.cb)
		rank += t
		ties += t*t*t - t
	}
	ub := rankB - nb*(nb+1)/2
	prob := ub / (na * nb)
	sigma := math.Sqrt(na * nb / 12 * ((n + 1) - ties/(n*(n-1))))
	if sigma == 0 {
		return prob, 1
	}
	z := (ub - na*nb/2) / sigma
	return prob, math.Erfc(math.Abs(z) / math.Sqrt2)
}
