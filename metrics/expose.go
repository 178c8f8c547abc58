package metrics

import (
	"bytes"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// ServeHTTP answers GET and HEAD with the metrics in the text format;
// other methods get 405. It checks no Host, Origin or token: the server
// that mounts it does.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "metrics: GET or HEAD only", http.StatusMethodNotAllowed)
		return
	}
	var b bytes.Buffer
	m.WriteText(&b)
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(b.Bytes())
}

// WriteText appends the metrics, as they are now, to b in the text
// exposition format: each family's HELP and TYPE, then its series, in
// a stable order.
func (m *Metrics) WriteText(b *bytes.Buffer) {
	t := text{b: b}
	t.head("replayctl_run_info", "gauge", "The run: its constant facts as labels; always 1.")
	t.sample("replayctl_run_info", m.info, "1")
	t.head("replayctl_run_elapsed_seconds", "gauge", "Time from the run's start to its latest event.")
	t.sample("replayctl_run_elapsed_seconds", nil, seconds(time.Duration(m.lastTUS.Load())*time.Microsecond))
	t.head("replayctl_run_ended", "gauge", "1 once the run has ended, else 0.")
	t.sample("replayctl_run_ended", nil, boolValue(m.runEnded.Load()))
	t.head("replayctl_events_total", "counter", "Events of the replay's event stream counted.")
	t.sample("replayctl_events_total", nil, uintValue(m.events.Load()))

	t.head("replayctl_sessions_started_total", "counter", "Sessions whose connection was opened.")
	t.sample("replayctl_sessions_started_total", nil, uintValue(m.started.Load()))
	t.head("replayctl_sessions_ended_total", "counter", "Sessions ended: completed (their part of the tape replayed) or stopped early.")
	t.sample("replayctl_sessions_ended_total", [][2]string{{"outcome", "completed"}}, uintValue(m.completed.Load()))
	t.sample("replayctl_sessions_ended_total", [][2]string{{"outcome", "stopped"}}, uintValue(m.stopped.Load()))
	t.head("replayctl_sessions_alive", "gauge", "Sessions connected and not ended.")
	t.sample("replayctl_sessions_alive", nil, strconv.FormatInt(m.alive.Load(), 10))

	methods := m.methods.snapshot()
	keys := slices.Sorted(maps.Keys(methods))
	perMethod := func(name, typ, help string, v func(*methodSeries) *atomic.Uint64) {
		t.head(name, typ, help)
		for _, k := range keys {
			t.sample(name, [][2]string{{"method", k}}, uintValue(v(methods[k]).Load()))
		}
	}
	perMethod("replayctl_requests_total", "counter", "Requests sent to the target, by method.",
		func(s *methodSeries) *atomic.Uint64 { return &s.requests })
	perMethod("replayctl_answers_total", "counter", "Answers received from the target, by the method of the request.",
		func(s *methodSeries) *atomic.Uint64 { return &s.answers })
	perMethod("replayctl_validation_failures_total", "counter", "Messages whose live answer differed from the recorded one (verdict failed), by method.",
		func(s *methodSeries) *atomic.Uint64 { return &s.failures })
	perMethod("replayctl_errors_total", "counter", "Messages that got an error or no answer in time (verdicts error and timeout), by method.",
		func(s *methodSeries) *atomic.Uint64 { return &s.errors })
	t.head("replayctl_results_total", "counter", "Messages judged, by method and verdict (passed, warned, failed, error, timeout, skipped, sent).")
	for _, k := range keys {
		verdicts := methods[k].verdicts.snapshot()
		for _, v := range slices.Sorted(maps.Keys(verdicts)) {
			t.sample("replayctl_results_total", [][2]string{{"method", k}, {"verdict", v}}, uintValue(verdicts[v].Load()))
		}
	}
	t.head("replayctl_request_duration_seconds", "histogram", "Time from a request's send to its answer, by method.")
	for _, k := range keys {
		t.histogram("replayctl_request_duration_seconds", [2]string{"method", k}, m.buckets, methods[k].latency)
	}
	t.head("replayctl_schedule_lag_seconds", "histogram", "How late client messages were sent past their due time, beyond the time held for the target.")
	t.histogram("replayctl_schedule_lag_seconds", [2]string{}, m.buckets, m.lag)
	t.head("replayctl_held_seconds", "histogram", "How long client messages waited past their due time for the target (an earlier answer, the in-flight limit, the connection).")
	t.histogram("replayctl_held_seconds", [2]string{}, m.buckets, m.held)

	byKey := func(name, label, help string, f *family[atomic.Uint64]) {
		t.head(name, "counter", help)
		series := f.snapshot()
		for _, k := range slices.Sorted(maps.Keys(series)) {
			t.sample(name, [][2]string{{label, k}}, uintValue(series[k].Load()))
		}
	}
	byKey("replayctl_holds_total", "reason", "Times a session's next message waited for the target, by reason.", m.holds)
	byKey("replayctl_faults_injected_total", "kind", "Chaos faults injected, by kind.", m.faults)
	byKey("replayctl_retries_total", "reason", "Requests sent again, by reason.", m.retries)
	t.head("replayctl_reconnects_total", "counter", "Session connections opened again after an injected disconnect.")
	t.sample("replayctl_reconnects_total", nil, uintValue(m.reconn.Load()))
}

// text writes the exposition format to b.
type text struct{ b *bytes.Buffer }

func (t text) head(name, typ, help string) {
	t.b.WriteString("# HELP " + name + " " + escapeHelp(help) + "\n# TYPE " + name + " " + typ + "\n")
}

func (t text) sample(name string, labels [][2]string, value string) {
	t.b.WriteString(name)
	if len(labels) > 0 {
		t.b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				t.b.WriteByte(',')
			}
			t.b.WriteString(l[0] + `="` + escapeLabel(l[1]) + `"`)
		}
		t.b.WriteByte('}')
	}
	t.b.WriteString(" " + value + "\n")
}

// histogram writes h's buckets, sum and count; label (when its name is
// not empty) goes on each.
func (t text) histogram(name string, label [2]string, bounds []time.Duration, h *histogram) {
	counts, sum := h.read()
	var base [][2]string
	if label[0] != "" {
		base = [][2]string{label}
	}
	for i, c := range counts {
		le := "+Inf"
		if i < len(bounds) {
			le = seconds(bounds[i])
		}
		t.sample(name+"_bucket", append(slices.Clip(base), [2]string{"le", le}), uintValue(c))
	}
	t.sample(name+"_sum", base, seconds(sum))
	t.sample(name+"_count", base, uintValue(counts[len(counts)-1]))
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'g', -1, 64) }

func uintValue(v uint64) string { return strconv.FormatUint(v, 10) }

func boolValue(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

// escapeLabel escapes a label value: backslash, double quote, newline.
func escapeLabel(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// escapeHelp escapes a HELP text: backslash and newline.
func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// validLabelName says whether s is a Prometheus label name
// ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __, which is reserved).
func validLabelName(s string) bool {
	if s == "" || strings.HasPrefix(s, "__") {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
