package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/scheduler"
)

// LateAfter is how late, past its due time, the replayer may send a client
// message before the message counts as late (load.late). A paced replay
// delivered its load when the schedule lag's p99 is at most LateAfter.
// Held time beyond LateAfter at p99 is called out in the load verdict.
const LateAfter = 10 * time.Millisecond

// DeliveredRatio is the least achieved rate, as a fraction of the
// intended one, at which a paced replay delivered its load
// (achieved_ratio>=0.95): below it the verdict says NOT delivered,
// whether the replayer fell behind or the target's answers held the
// requests back. A threshold on achieved_ratio sets another bar.
const DeliveredRatio = 0.95

// Load is the report's "load" section: did a paced replay deliver the load
// its schedule meant? It is filled for the paced speeds (realtime, Nx,
// fixed:, rps:); for fast and stepped replays, which follow no schedule,
// and when the speed is not known, Applicable is false and the numbers are
// zero.
//
// The time between a client message's due time and its send splits into
// held time (it waited for an answer the recording had before it, or for
// the in-flight limit: the target set that pace) and schedule lag (the
// replayer was free to send and sent late). Only lag counts against
// delivery.
type Load struct {
	Applicable bool `json:"applicable"`
	// Requests, Notifications and Handshakes count the client messages
	// sent, as the rates below see them. At realtime and Nx the rates are
	// over the requests after the handshake (which waits for the target
	// to start, and is not paced): Requests counts those, Handshakes the
	// handshake's requests (initialize), Notifications is 0. At fixed:
	// and rps: every client message takes a ticket, the handshake's and
	// the notifications too, and the rates are over them all: Requests
	// counts every request, Notifications every notification, Handshakes
	// is 0.
	Requests      int64 `json:"requests"`
	Notifications int64 `json:"notifications,omitempty"`
	Handshakes    int64 `json:"handshakes,omitempty"`
	// IntendedRatePerS is the rate the schedule meant of the messages
	// counted above: the intervals between the first and the last due
	// time (messages − 1) over that span, so that rps:500 intends 500/s;
	// 0 for a single message or a zero span. AchievedRatePerS is the same
	// over the send times (over the due times' span when the sends took
	// less: a late start caught up is not a faster rate).
	IntendedRatePerS float64 `json:"intended_rate_per_s"`
	AchievedRatePerS float64 `json:"achieved_rate_per_s"`
	// AchievedRatio is AchievedRatePerS / IntendedRatePerS, 0 when no
	// rate was intended (a single request).
	AchievedRatio float64 `json:"achieved_ratio"`
	// Late counts the client messages (requests and notifications) sent
	// more than LateAfterMS past their due time by the replayer's own lag,
	// like k6's dropped_iterations.
	Late        int64   `json:"late"`
	LateAfterMS float64 `json:"late_after_ms"`
	LagP99MS    float64 `json:"lag_p99_ms"`
	HeldP99MS   float64 `json:"held_p99_ms"`
	// Delivered is true when something was sent, the lag's p99 is at
	// most LateAfterMS (the replayer kept to its schedule) and the
	// achieved rate is at least DeliveredRatio of the intended one (when
	// a rate was intended): held time that slowed the rate counts against
	// it too.
	Delivered bool `json:"delivered"`
	// Verdict says the above in one sentence, e.g. "delivered: 1,000
	// requests at 498/s, 99.6% of the 500/s intended (lag p99 0.3 ms)".
	Verdict string `json:"verdict"`
}

// timeSpan is the count, first and last of a set of times.
type timeSpan struct {
	n           int64
	first, last time.Time
}

func (s *timeSpan) add(t time.Time) {
	if s.n == 0 || t.Before(s.first) {
		s.first = t
	}
	if s.n == 0 || t.After(s.last) {
		s.last = t
	}
	s.n++
}

func (s *timeSpan) merge(o timeSpan) {
	if o.n == 0 {
		return
	}
	if s.n == 0 {
		*s = o
		return
	}
	s.first = earlier(s.first, o.first)
	s.last = later(s.last, o.last)
	s.n += o.n
}

// rate is the intervals between the times over their span, per second; 0
// with fewer than two times or a zero span.
func (s timeSpan) rate() float64 { return s.rateOver(s.last.Sub(s.first)) }

// rateOver is the intervals between the times over d, per second; 0 with
// fewer than two times or a zero d.
func (s timeSpan) rateOver(d time.Duration) float64 {
	if s.n < 2 || d <= 0 {
		return 0
	}
	return float64(s.n-1) / d.Seconds()
}

// achievedRate is the rate of the sends over their span, or over the
// schedule's when that is longer: a replayer never sends before a message
// is due, so sends squeezed into less time than the schedule meant come
// from a late start caught up, not from a faster load (2 requests due 2 ms
// apart, the first sent 1.3 ms late, are 500/s, not 1,429/s).
func achievedRate(sent, due timeSpan) float64 {
	return sent.rateOver(max(sent.last.Sub(sent.first), due.last.Sub(due.first)))
}

// load builds the load section from what c collected, for a replay at
// speed (nil: not known). Only a paced speed (realtime, Nx, fixed:<d>,
// rps:<n>) has one; fast and stepped follow no schedule.
func (c *Collector) load(speed *scheduler.Speed, sessions int, lag, held Stats) Load {
	switch {
	case speed == nil:
		return Load{Verdict: "not applicable: the speed is not known"}
	case !speed.Paced():
		return Load{Verdict: "not applicable: speed " + speed.String() + " follows no schedule"}
	}
	l := Load{
		Applicable:  true,
		Late:        c.late,
		LateAfterMS: durToMS(LateAfter),
		LagP99MS:    lag.P99,
		HeldP99MS:   held.P99,
	}
	// The messages the rates are over, and their count (Load.Requests).
	due, sent := c.reqDue, c.reqSent
	l.Requests, l.Handshakes = c.reqSent.n, c.requestsSent-c.reqSent.n
	if !speed.ByTime() { // fixed:, rps: every client message takes a ticket
		due, sent = c.msgDue, c.msgSent
		l.Requests, l.Notifications, l.Handshakes = c.requestsSent, c.msgSent.n-c.requestsSent, 0
	}
	l.IntendedRatePerS = due.rate()
	l.AchievedRatePerS = achievedRate(sent, due)
	if l.IntendedRatePerS > 0 {
		l.AchievedRatio = math.Round(l.AchievedRatePerS/l.IntendedRatePerS*1e6) / 1e6
	}
	l.Delivered = lag.Count > 0 && lag.P99 <= l.LateAfterMS && l.rateKept()
	l.Verdict = loadVerdict(l, lag.Count, sessions)
	return l
}

// cutShort is l of a paced replay that stopped before the end of its
// tape (stop, "" for none): not judged. The messages sent before the stop
// are kept, but their rate is not one of the schedule — the sends of a
// run stopped at start-up span a moment, and a rate over that moment is
// noise (29,244/s at 0.05x) — so the rates are 0 and Delivered false.
func (l Load) cutShort(stop StopKind) Load {
	if !l.Applicable || stop == "" {
		return l
	}
	l.IntendedRatePerS, l.AchievedRatePerS, l.AchievedRatio, l.Delivered = 0, 0, 0, false
	why := "the replay was interrupted"
	if stop != StopInterrupted {
		why = "the replay stopped early (" + string(stop) + ")"
	}
	sent := pluralGrouped(l.Requests+l.Handshakes, "request") // at realtime and Nx the notifications are not counted
	if l.Notifications > 0 {
		sent = pluralGrouped(l.Requests+l.Notifications, "client message")
	}
	l.Verdict = fmt.Sprintf("not judged: %s; a schedule cut short has no rate to judge (%s sent before the stop, lag p99 %s)",
		why, sent, FormatDurationMS(l.LagP99MS))
	return l
}

// rateKept reports whether the achieved rate is at least DeliveredRatio
// of the intended one, or no rate was intended.
func (l Load) rateKept() bool {
	return l.IntendedRatePerS == 0 || l.AchievedRatio >= DeliveredRatio
}

// loadVerdict says in a sentence whether l was delivered, and if not,
// why and what to do; sent is the number of client messages sent,
// sessions the replay's sessions (the advice differs for one).
func loadVerdict(l Load, sent int64, sessions int) string {
	var b strings.Builder
	if sent == 0 {
		return "NOT delivered: nothing was sent"
	}
	if l.Delivered {
		b.WriteString("delivered: ")
	} else {
		b.WriteString("NOT delivered: ")
	}
	// What the rate is over, as counted (Load.Requests).
	var what, aside string
	switch {
	case l.Notifications > 0:
		what = pluralGrouped(l.Requests+l.Notifications, "message")
		aside = fmt.Sprintf(" (%s, %s; each takes a ticket)", pluralGrouped(l.Requests, "request"), pluralGrouped(l.Notifications, "notification"))
	case l.Handshakes > 0:
		what = pluralGrouped(l.Requests, "request")
		aside = fmt.Sprintf(" (+%s, not paced)", pluralGrouped(l.Handshakes, "handshake"))
	default:
		what = pluralGrouped(l.Requests, "request")
	}
	b.WriteString(what)
	if l.IntendedRatePerS > 0 {
		fmt.Fprintf(&b, " at %s%s, %s of the %s intended", formatRate(l.AchievedRatePerS), aside, formatPercent(l.AchievedRatio), formatRate(l.IntendedRatePerS))
		if !l.rateKept() {
			fmt.Fprintf(&b, " (%s needed)", formatPercent(DeliveredRatio))
		}
	} else {
		b.WriteString(aside)
	}
	lagKept := l.LagP99MS <= l.LateAfterMS
	fmt.Fprintf(&b, " (lag p99 %s)", FormatDurationMS(l.LagP99MS))
	if !lagKept {
		advice := "lower the sessions (--sessions) or the speed (--speed)"
		if sessions <= 1 {
			advice = "lower the speed (--speed), or replay on a machine less busy"
		}
		fmt.Fprintf(&b, "; the replayer fell behind its schedule (%s more than %s late): the machine or the replayer could not keep up — %s",
			pluralGrouped(l.Late, "message"), FormatDurationMS(l.LateAfterMS), advice)
	}
	if l.HeldP99MS > l.LateAfterMS {
		fmt.Fprintf(&b, "; held p99 %s: the target set the pace (its answers awaited: causal order / --max-inflight; or a send it held until it answered)", FormatDurationMS(l.HeldP99MS))
	}
	return b.String()
}

// formatPercent shows a fraction as a percentage: "99.6%", "16%", "95%".
func formatPercent(f float64) string {
	p := f * 100
	if p >= 10 && math.Abs(p-math.Round(p)) < 0.05 || p >= 100 {
		return strconv.FormatFloat(math.Round(p), 'f', 0, 64) + "%"
	}
	return strings.TrimSuffix(strconv.FormatFloat(p, 'f', 1, 64), ".0") + "%"
}

// formatRate shows a rate per second: "12,500/s", "498/s", "66.7/s", "2.5/s".
func formatRate(r float64) string {
	switch {
	case r >= 100:
		return grouped(int64(math.Round(r))) + "/s"
	case r >= 10:
		return strings.TrimSuffix(strconv.FormatFloat(r, 'f', 1, 64), ".0") + "/s"
	default:
		s := strconv.FormatFloat(r, 'f', 2, 64)
		return strings.TrimSuffix(strings.TrimRight(s, "0"), ".") + "/s"
	}
}

// grouped writes n with thousands separated by commas: 1,000.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func pluralGrouped(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return grouped(n) + " " + english.Plural(n, word)
}
