package compare

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/replayctl/replayctl/history"
	"github.com/replayctl/replayctl/report"
)

// Latency compares one method's (Name empty) or one name's latency
// distribution between the runs.
type Latency struct {
	Method string `json:"method"`
	Name   string `json:"name,omitempty"`
	// The distributions of each run, in milliseconds.
	Primary   Quantiles `json:"primary"`
	Candidate Quantiles `json:"candidate"`
	Secondary Quantiles `json:"secondary"`
	// KS and KSP are the Kolmogorov–Smirnov statistic of primary against
	// candidate and its p; ProbSlower is the Mann–Whitney probability
	// that a candidate latency exceeds a primary one (0.5: no tendency),
	// MWP its p.
	KS         float64 `json:"ks"`
	KSP        float64 `json:"ks_p"`
	ProbSlower float64 `json:"prob_slower"`
	MWP        float64 `json:"mw_p"`
	// Changed: the candidate's distribution differs from the primary's
	// (KSP below the alpha and the median or p95 moved by the minimum
	// effect, as history.Compare decides). NoiseChanged: the secondary's
	// does by the same rule, which says the machine was too noisy for
	// Changed to mean much.
	Changed      bool `json:"changed"`
	NoiseChanged bool `json:"noise_changed"`
	// Missing says which side had no latency ("only in primary", …).
	Missing string `json:"missing,omitempty"`
}

// Quantiles are a distribution's size and percentiles in milliseconds.
type Quantiles struct {
	N   int64   `json:"n"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

func quantilesOf(h *hdrhistogram.Histogram) Quantiles {
	if h == nil {
		return Quantiles{}
	}
	at := func(q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }
	return Quantiles{N: h.TotalCount(), P50: at(50), P90: at(90), P95: at(95), P99: at(99)}
}

// groups are a report's latency histograms per method and per name.
func groups(r *report.Report) (map[history.Group]*hdrhistogram.Histogram, error) {
	out := map[history.Group]*hdrhistogram.Histogram{}
	for _, list := range [][]report.GroupHistogram{r.Histograms.PerMethod, r.Histograms.PerName} {
		for _, g := range list {
			h, err := g.Latency.Histogram()
			if err != nil {
				return nil, fmt.Errorf("compare: latency of %s %s: %w", g.Method, g.Name, err)
			}
			out[history.Group{Method: g.Method, Name: g.Name}] = h
		}
	}
	return out, nil
}

// compareLatency compares the per-method and per-name latencies of the
// primary run with the candidate's, and with the secondary's for the
// noise.
func compareLatency(primary, candidate, secondary *report.Report, alpha, minEffect float64) ([]Latency, error) {
	hp, err := groups(primary)
	if err != nil {
		return nil, err
	}
	hc, err := groups(candidate)
	if err != nil {
		return nil, err
	}
	hs, err := groups(secondary)
	if err != nil {
		return nil, err
	}
	o := history.CompareOptions{Alpha: alpha, MinEffect: minEffect}
	if minEffect == 0 {
		o.MinEffect = -1 // history's "none"; its 0 is "the default"
	}
	noise := map[history.Group]history.Change{}
	for _, c := range history.Compare(hp, hs, o) {
		noise[history.Group{Method: c.Method, Name: c.Name}] = c
	}
	out := []Latency{}
	for _, c := range history.Compare(hp, hc, o) {
		g := history.Group{Method: c.Method, Name: c.Name}
		l := Latency{
			Method: c.Method, Name: c.Name,
			Primary: quantilesOf(hp[g]), Candidate: quantilesOf(hc[g]), Secondary: quantilesOf(hs[g]),
			KS: c.D, KSP: c.P, ProbSlower: c.ProbBGreater, MWP: c.MWP,
			Changed: c.Changed, NoiseChanged: noise[g].Changed,
		}
		switch c.Missing {
		case "only in A":
			l.Missing = "only in primary"
		case "only in B":
			l.Missing = "only in candidate"
		}
		out = append(out, l)
	}
	return out, nil
}
