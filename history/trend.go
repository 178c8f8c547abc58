package history

import (
	"context"
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
// newest Last).
func (s *Store) Trend(ctx context.Context, q Query, m report.Metric) ([]Point, error) {
	where, args := q.where()
	query := `SELECT id, started_at, version, report FROM runs` + where + ` ORDER BY started_at DESC, id DESC`
	if q.Last > 0 {
		query += ` LIMIT ` + strconv.Itoa(q.Last)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("history: trend of %s in %s: %w", m, s.path, err)
	}
	defer rows.Close()
	var out []Point
	var raw []byte
	for rows.Next() {
		var p Point
		var started int64
		if err := rows.Scan(&p.Run, &started, &p.Version, &raw); err != nil {
			return nil, err
		}
		p.StartedAt = time.Unix(0, started).UTC()
		var r report.Report
		if err := json.Unmarshal(raw, &r); err != nil {
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
