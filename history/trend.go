package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/replayctl/replayctl/report"
)

// Point is a metric's value in one run.
type Point struct {
	Run       int64
	StartedAt time.Time
	Version   string
	Value     float64 // in the metric's Unit
	Measured  bool    // false: the run has no data for it (Value is 0)
}

// Trend is metric m in each run q selects, oldest first (q.Last keeps the
// newest Last). Only the part of each kept report that m reads is
// decoded: the one line of the method or name a filtered metric names,
// the figures for the rest.
func (s *Store) Trend(ctx context.Context, q Query, m report.Metric) ([]Point, error) {
	where, args := q.where()
	column, join := "r.figures", ""
	g := filterGroup(m.Filter)
	if m.Filter.Key != "" {
		column, join = "l.summary", ` LEFT JOIN lines l ON l.run = r.id AND l.method = ? AND l.name = ?`
		args = append([]any{g.Method, g.Name}, args...)
	}
	query := `SELECT r.id, r.started_at, r.version, ` + column + ` FROM runs r` + join + where + ` ORDER BY r.started_at DESC, r.id DESC`
	if q.Last > 0 {
		query += ` LIMIT ` + strconv.Itoa(q.Last)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("history: trend of %s in %s: %w", m, s.path, err)
	}
	defer rows.Close()
	var out []Point
	var raw sql.RawBytes
	for rows.Next() {
		var p Point
		var started int64
		if err := rows.Scan(&p.Run, &started, &p.Version, &raw); err != nil {
			return nil, err
		}
		p.StartedAt = time.Unix(0, started).UTC()
		var r report.Report
		switch {
		case m.Filter.Key == "":
			// The sections a metric without a filter reads, and no more.
			var f struct {
				Summary     *report.Summary     `json:"summary"`
				Performance *report.Performance `json:"performance"`
				Load        *report.Load        `json:"load"`
				Validation  *report.Validation  `json:"validation"`
				Chaos       *struct {
					Injected int64 `json:"injected"`
				} `json:"chaos"`
			}
			f.Summary, f.Performance, f.Load, f.Validation = &r.Summary, &r.Performance, &r.Load, &r.Validation
			err = json.Unmarshal(raw, &f)
			if f.Chaos != nil {
				r.Chaos.Injected = f.Chaos.Injected
			}
		case raw != nil:
			var line report.MethodSummary
			err = json.Unmarshal(raw, &line)
			if g.Name == "" {
				r.PerMethod = []report.MethodSummary{line}
			} else {
				r.PerName = []report.MethodSummary{line}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("history: run %d: report: %w", p.Run, err)
		}
		p.Value, p.Measured = r.Value(m)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// Slope is the least-squares slope of the measured points' values per
// run (MCProbe finds trends so, over a window of 10), and how many points
// it used; 0 with fewer than 2.
func Slope(points []Point) (float64, int) {
	var xs, ys []float64
	for i, p := range points {
		if p.Measured {
			xs, ys = append(xs, float64(i)), append(ys, p.Value)
		}
	}
	n := float64(len(xs))
	if n < 2 {
		return 0, len(xs)
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, len(xs)
	}
	return (n*sxy - sx*sy) / den, len(xs)
}
