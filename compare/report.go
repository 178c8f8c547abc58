package compare

import "github.com/replayctl/replayctl/report"

// Report is what Run found: the runs, the paths that differed and those
// that really changed, and the latencies compared.
type Report struct {
	Tape    string    `json:"tape"`
	Runs    []RunInfo `json:"runs"` // primary, candidate, secondary
	Margins Margins   `json:"margins"`
	Summary Summary   `json:"summary"`
	// Changed are the paths Diffy's rule reports, by method, name and
	// path.
	Changed []Path `json:"changed"`
	// Paths are every path that differed in either comparison, changed
	// or noise, in the same order.
	Paths     []Path     `json:"paths"`
	Endpoints []Endpoint `json:"endpoints"`
	Latency   []Latency  `json:"latency"`
	// Seed is the seed the primary's replay picked at random for its
	// chaos or random order (replay.Order("random")), which the other
	// two were given; absent when none was picked (a seed given with
	// replay.Seed applies to all three anyway).
	Seed *int64 `json:"seed,omitempty"`
}

// RunInfo is one of the three replays.
type RunInfo struct {
	Role   Role   `json:"role"`
	Target string `json:"target"` // as reports name it, credentials masked
	// Again: the secondary run replayed the primary's target again.
	Again bool `json:"again,omitempty"`
	// Status is the replay's exit status as `replayctl run` gives it (0
	// every answer matched the tape, 1 some did not, 3 the target failed);
	// compare itself looks only at the answers.
	Status     int     `json:"status"`
	Error      string  `json:"error,omitempty"` // why the replay stopped early
	Answers    int     `json:"answers"`         // answers that came
	DurationMS float64 `json:"duration_ms"`
}

// Margins are the margins of Diffy's rule, in percent.
type Margins struct {
	Relative float64 `json:"relative"`
	Absolute float64 `json:"absolute"`
}

// Summary counts what Run found.
type Summary struct {
	Compared       int `json:"compared"`        // answers paired (of any run)
	Endpoints      int `json:"endpoints"`       // methods and names
	Changed        int `json:"changed"`         // paths reported
	Noise          int `json:"noise"`           // paths that differed and were not reported
	LatencyChanged int `json:"latency_changed"` // methods and names whose latency changed
	TargetFailed   int `json:"target_failed"`   // runs whose target failed (status 3)
}

// summarise fills the summary in.
func (r *Report) summarise() {
	s := Summary{Endpoints: len(r.Endpoints), Changed: len(r.Changed), Noise: len(r.Paths) - len(r.Changed)}
	for _, e := range r.Endpoints {
		s.Compared += e.Total
	}
	for _, l := range r.Latency {
		if l.Changed {
			s.LatencyChanged++
		}
	}
	for _, run := range r.Runs {
		if run.Status == report.ExitTarget {
			s.TargetFailed++
		}
	}
	r.Summary = s
}

// Different reports whether a path changed (what the CLI's
// --fail-on-difference exits 1 for).
func (r *Report) Different() bool { return len(r.Changed) > 0 }
