package history

import (
	"context"

	"github.com/replayctl/replayctl/report"
)

// DefaultLinkRuns is how many of the tape's last runs a report's history
// section draws.
const DefaultLinkRuns = 20

// Link is the history section of rep, kept as run number run: the store,
// and for each method of rep with latencies (the handshake's aside) its
// p99 over the last runs of the tape (tapeHash), rep's run last.
func (s *Store) Link(ctx context.Context, run int64, tapeHash string, rep *report.Report, last int) (*report.HistoryLink, error) {
	if last <= 0 {
		last = DefaultLinkRuns
	}
	link := &report.HistoryLink{Store: s.path, Run: run, TapeHash: tapeHash}
	for _, line := range rep.PerMethod {
		if line.Handshake || line.LatencyMS.Count == 0 {
			continue
		}
		m, err := report.ParseMetric("p99{method:" + line.Method + "}")
		if err != nil {
			continue // a method a filter cannot name
		}
		points, err := s.Trend(ctx, Query{Tape: tapeHash, Last: last}, m)
		if err != nil {
			return nil, err
		}
		t := report.MethodTrend{Method: line.Method}
		for _, p := range points {
			t.Runs = append(t.Runs, p.Run)
			if p.Measured {
				v := p.Value
				t.P99MS = append(t.P99MS, &v)
			} else {
				t.P99MS = append(t.P99MS, nil)
			}
		}
		link.Trends = append(link.Trends, t)
	}
	return link, nil
}
