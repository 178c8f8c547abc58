package report

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// BenchmarkCollectorAdd measures Add for passing requests once the timeline
// is full, the steady state of a long load replay: it must not allocate.
func BenchmarkCollectorAdd(b *testing.B) {
	cases := []struct {
		name string
		r    Result
	}{
		{"passed", request(1, time.Second, 300*time.Microsecond, 12*time.Millisecond, Passed)},
		{"notification", Result{Seq: 2, Dir: DirC2S, Kind: KindNotification, Due: at(0), Sent: at(time.Millisecond), Verdict: Sent}},
		{"failed_over_limit", func() Result {
			r := request(3, 0, 0, time.Millisecond, Failed)
			r.Differences = []Difference{{Path: "result.x"}}
			return r
		}()},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			c := NewCollector(WithTimelineLimit(1), WithFailureLimit(1))
			c.Add(bc.r)
			b.ReportAllocs()
			for b.Loop() {
				c.Add(bc.r)
			}
		})
	}
}

// BenchmarkMerge measures merging two collectors' histograms and counts.
func BenchmarkMerge(b *testing.B) {
	o := NewCollector(WithTimelineLimit(0))
	for _, r := range randomResults(10000) {
		o.Add(r)
	}
	c := NewCollector(WithTimelineLimit(0), WithFailureLimit(0), WithErrorLimit(0))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Merge(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReport measures building a report with a full default timeline.
func BenchmarkReport(b *testing.B) {
	c := NewCollector()
	for _, r := range randomResults(DefaultTimelineLimit) {
		c.Add(r)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Report(Meta{Tape: "t.jsonl"})
	}
}

// BenchmarkWriters measures writing a report with a full default timeline
// (10k entries, a thousand failures and errors kept) in each format.
func BenchmarkWriters(b *testing.B) {
	c := NewCollector()
	for _, r := range randomResults(DefaultTimelineLimit) {
		c.Add(r)
	}
	rep := c.Report(Meta{Tape: "t.jsonl", Sessions: 3})
	writers := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"format=json/timeline=10000", rep.WriteJSON},
		{"format=junit/timeline=10000", rep.WriteJUnit},
		{"format=html/timeline=10000", rep.WriteHTML},
	}
	for _, w := range writers {
		b.Run(w.name, func(b *testing.B) {
			var n countingWriter
			b.ReportAllocs()
			for b.Loop() {
				if err := w.write(&n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/float64(b.N)/1024, "KiB/op")
		})
	}
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// BenchmarkReportHistograms measures what keeping the histograms without
// loss costs a report of a 100k-result replay: encoding the four
// histograms (HDR V2, zlib, base64), building the whole report, and
// writing it as JSON, with the size of the histograms section and of the
// file (with a full 10k timeline) per op.
func BenchmarkReportHistograms(b *testing.B) {
	c := NewCollector()
	for _, r := range randomResults(100000) {
		c.Add(r)
	}
	meta := Meta{Tape: "t.jsonl", Sessions: 3, Speed: speedOf("realtime")}
	b.Run("encode/samples=100000", func(b *testing.B) {
		var size int
		b.ReportAllocs()
		for b.Loop() {
			h := c.histograms()
			size = len(h.Latency.HDR) + len(h.LatencyFromIntended.HDR) + len(h.ScheduleLag.HDR) + len(h.Held.HDR)
		}
		b.ReportMetric(float64(size), "hdr-bytes")
	})
	b.Run("report+json/samples=100000", func(b *testing.B) {
		var n countingWriter
		var section int
		b.ReportAllocs()
		for b.Loop() {
			r := c.Report(meta)
			if err := r.WriteJSON(&n); err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			if err := enc.Encode(r.Histograms); err != nil {
				b.Fatal(err)
			}
			section = buf.Len()
		}
		b.ReportMetric(float64(n)/float64(b.N), "file-bytes")
		b.ReportMetric(float64(section), "section-bytes")
	})
	b.Run("merge2/samples=100000", func(b *testing.B) {
		var buf bytes.Buffer
		if err := c.Report(meta).WriteJSON(&buf); err != nil {
			b.Fatal(err)
		}
		r, err := Parse(buf.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		other := *r
		other.Summary.RunID += " again" // another run: one run_id is the same run twice
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Merge([]*Report{r, &other}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
