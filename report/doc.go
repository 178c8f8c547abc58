// Package report turns the results of a replay into metrics and a report.
//
// The engine's validate/report stage owns one [Collector] and hands it a
// [Result] for every replayed message ([Collector.Add]) and a [Fault] for
// every injected chaos fault ([Collector.AddFault]). The collector keeps
// exact counts and three HDR histograms (latency from the actual send,
// latency from the intended send, schedule lag), so its memory stays flat
// however long the tape: the timeline, the failures, the errors and the
// faults it keeps in detail are capped ([WithTimelineLimit],
// [WithFailureLimit], [WithErrorLimit], [WithFaultLimit]) and the report says
// how many were left out. Collectors of several sessions or workers combine
// with [Collector.Merge].
//
// [Collector.Report] builds a [Report], a plain value whose JSON field names
// are a contract tools and CI rely on (see DESIGN.md, "Report (JSON)").
// [Report.WriteJSON] and [Report.WriteText] write it; [WriteFile] writes it
// atomically by the file's extension.
//
// Definitions used throughout:
//   - latency = Answered − Sent; latency from intended = Answered − Due (the
//     coordinated-omission-free view); schedule lag = Sent − Due.
//   - Histograms have microsecond resolution, 3 significant digits and a
//     range of 0..1h; values outside are clamped into it and counted
//     ("clamped"). Percentiles are HDR values, capped by the exact min and max.
//   - success_rate = passed / (checked + errors + timeouts), and 1 when that
//     is zero: a run where every request timed out did not succeed.
//   - error_rate = (errors + timeouts) / requests sent, capped at 1; with no
//     request sent it is 1 if there was any error and 0 otherwise.
//   - throughput_per_s = requests answered / duration.
package report
