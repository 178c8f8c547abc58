package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestWriteJSONTimelineAsEncodingJSON: WriteJSON, which writes the
// timeline by hand, gives byte for byte what encoding/json alone gives
// (writeJSONReflect, WriteJSON as it was): for collected reports (with
// and without the timeline limit reached) and for timelines of odd
// values — times null, zero, negative, below 1e-6 and from 1e21 (the
// exponent forms), strings that need escapes (quotes, backslashes,
// control characters, HTML's characters, U+2028, invalid UTF-8,
// non-ASCII), kind and error present and absent, an empty and a null
// timeline; and a timeline with differences, which is left to
// encoding/json whole.
func TestWriteJSONTimelineAsEncodingJSON(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	odd := []TimelineEntry{
		{Seq: 0, Session: "cont\x80", Method: "us\x1f", Dir: DirC2S, Verdict: Passed},
		{Seq: -7, Session: "", Method: "", Dir: "", Verdict: "",
			DueMS: f(0), SentMS: f(math.Copysign(0, -1)), AnsweredMS: f(-1.5), LatencyMS: f(1e-7)},
		{Seq: math.MaxInt64, Session: "quote\" back\\slash", Method: "tab\tnl\nnul\x00 bell\x07 bs\b ff\f cr\r", Dir: "<a href='x'>&amp;</a>",
			Kind: KindRequest, DueMS: f(1e21), SentMS: f(999999999999999999999.0), AnsweredMS: f(1e-6), LatencyMS: f(0.000000999),
			Verdict: Failed, Error: "line\u2028para\u2029end"},
		{Seq: math.MinInt64, Session: "bad\xffutf8\xc3", Method: "héllo wörld ☃ 𝄞", Dir: DirS2C,
			DueMS: f(math.MaxFloat64), SentMS: f(math.SmallestNonzeroFloat64), AnsweredMS: f(-1e-300), LatencyMS: f(123456.789012345),
			Verdict: Timeout, Error: "no answer within 5s; raise --timeout", Kind: KindNotification},
		{Seq: 3, Session: "s2", Method: "tools/call", Dir: DirC2S, DueMS: f(0.1), SentMS: f(0.30000000000000004), AnsweredMS: f(1.0 / 3), LatencyMS: f(2.5e20), Verdict: Error, Differences: []Difference{}},
	}
	limited := func() Report {
		c := NewCollector(WithRunID(sampleRunID), WithTimelineLimit(3))
		c.Start(at(0))
		for i, r := range microResults(10) {
			r.Seq = int64(i)
			c.Add(r)
		}
		c.Finish(at(time.Second))
		return c.Report(Meta{Tape: "t.jsonl", Sessions: 1})
	}
	cases := map[string]func() Report{
		"sample":  sampleReport,
		"limited": limited,
		"random": func() Report {
			c := NewCollector(WithRunID(sampleRunID))
			c.Start(at(0))
			for _, r := range randomResults(500) {
				c.Add(r)
			}
			c.Finish(at(time.Minute))
			return c.Report(Meta{Tape: "t.jsonl", Sessions: 3})
		},
		"odd values": func() Report {
			r := sampleReport()
			r.Timeline = odd
			return r
		},
		"one odd entry at a time": nil, // below
		"differences": func() Report { // left to encoding/json
			r := sampleReport()
			r.Timeline = append(r.Timeline, TimelineEntry{Seq: 9, Session: "s1", Method: "tools/call", Verdict: Failed, Differences: []Difference{
				{Path: "result.content[0].text", Expected: json.RawMessage(`"<b>sunny</b>"`), Actual: json.RawMessage(`"rain & \u2028"`), Kind: "changed"},
				{Path: "result.isError", Actual: json.RawMessage(`true`), Kind: "extra"},
			}})
			return r
		},
		"empty": func() Report {
			r := sampleReport()
			r.Timeline = []TimelineEntry{}
			return r
		},
		"null": func() Report {
			r := sampleReport()
			r.Timeline = nil
			return r
		},
	}
	check := func(t *testing.T, r Report) {
		t.Helper()
		var got, want bytes.Buffer
		gerr, werr := r.WriteJSON(&got), r.writeJSONReflect(&want)
		if gerr != nil || werr != nil {
			t.Fatalf("WriteJSON: %v; encoding/json: %v", gerr, werr)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("WriteJSON differs from encoding/json at %s", firstDifference(got.String(), want.String()))
		}
		hand := len(r.Timeline) > 0
		for i := range r.Timeline {
			hand = hand && len(r.Timeline[i].Differences) == 0
		}
		var out bytes.Buffer
		if done, err := r.writeJSONSpliced(&out); done != hand || err != nil || done != (out.Len() > 0) {
			t.Fatalf("written by hand: %v (%v, %d bytes), want %v", done, err, out.Len(), hand)
		}
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			if build != nil {
				check(t, build())
				return
			}
			for i := range odd {
				r := sampleReport()
				r.Timeline = odd[i : i+1]
				check(t, r)
			}
		})
	}
	t.Run("limited has a limit", func(t *testing.T) {
		r := limited()
		if len(r.Timeline) != 3 || r.TimelineOmitted != 7 {
			t.Fatalf("got %d entries, %d omitted; want 3, 7", len(r.Timeline), r.TimelineOmitted)
		}
	})
}

// TestWriteJSONTimelineNotFinite: a time that JSON cannot hold is
// encoding/json's error, as before, not a number written by hand.
func TestWriteJSONTimelineNotFinite(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		r := sampleReport()
		r.Timeline[1].SentMS = &v
		var got, want bytes.Buffer
		gerr, werr := r.WriteJSON(&got), r.writeJSONReflect(&want)
		if gerr == nil || werr == nil || !strings.Contains(gerr.Error(), "unsupported value") {
			t.Errorf("%v: WriteJSON: %v; encoding/json: %v; want both an unsupported value error", v, gerr, werr)
		}
	}
}

// TestWriteJSONTimelineMerges: reports written by WriteJSON read back and
// merge (report.Merge), and the merged report's timeline is the parts'
// in order.
func TestWriteJSONTimelineMerges(t *testing.T) {
	rs := microResults(300)
	var parts []*Report
	for p := range 3 {
		c := NewCollector()
		c.Start(at(0))
		for _, r := range rs[p*100 : (p+1)*100] {
			c.Add(r)
		}
		c.Finish(at(time.Minute))
		parts = append(parts, throughJSON(t, c.Report(Meta{Tape: "t.jsonl", Sessions: 1})))
	}
	merged, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Timeline) != 300 {
		t.Fatalf("merged timeline has %d entries, want 300", len(merged.Timeline))
	}
	for i, e := range merged.Timeline {
		if e.Seq != rs[i].Seq || e.Session != rs[i].Session || e.Verdict != rs[i].Verdict {
			t.Fatalf("merged entry %d: got seq %d %s %s, want seq %d %s %s", i, e.Seq, e.Session, e.Verdict, rs[i].Seq, rs[i].Session, rs[i].Verdict)
		}
	}
	check := func(r Report) {
		t.Helper()
		var got, want bytes.Buffer
		if err := r.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if err := r.writeJSONReflect(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("merged report: WriteJSON differs from encoding/json at %s", firstDifference(got.String(), want.String()))
		}
	}
	check(*merged)
}

// TestAppendJSONTimeAsEncodingJSON: a time in ms is written as
// encoding/json writes the float64, for whole microseconds (the fast
// path) at both ends of its range and past them, negatives, and values
// a hair off a whole microsecond.
func TestAppendJSONTimeAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	vs := []float64{0, math.Copysign(0, -1), 0.001, -0.001, 0.01, 0.1, 1, 10, 0.5, 1.25, 2.125, 1e-6, 1e-7, 999999999999.999, -999999999999.999,
		1e12, 1e15, 1e20, 1e21, 1e300, 0.0015, 1.0 / 3, math.Nextafter(0.001, 1), math.Nextafter(2.5, 0), math.MaxFloat64}
	for range 20000 {
		us := rng.Int64N(1 << uint(rng.IntN(54)))
		if rng.IntN(4) == 0 {
			us = -us
		}
		f := float64(us) / 1000
		vs = append(vs, f, math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1)), durToMS(time.Duration(rng.Int64())))
	}
	for _, v := range vs {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONTime(nil, &v); string(got) != string(want) {
			t.Fatalf("%v (bits %#x): got %s, want %s", v, math.Float64bits(v), got, want)
		}
	}
}
