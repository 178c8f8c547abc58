// Package report turns the results of a replay into metrics and a report.
//
// The engine's validate/report stage owns one [Collector] and hands it a
// [Result] for every replayed message ([Collector.Add]) and a [Fault] for
// every injected chaos fault ([Collector.AddFault]). The collector keeps
// exact counts and four HDR histograms (latency from the actual send,
// latency from the intended send, schedule lag, held time), so its memory
// stays flat however long the tape: the timeline, the failures, the errors
// and the faults it keeps in detail are capped ([WithTimelineLimit],
// [WithFailureLimit], [WithErrorLimit], [WithFaultLimit]) and the report
// says how many were left out; so is each value it keeps: a difference's
// expected or actual JSON, an error's message, longer than [MaxValueBytes],
// is kept as an excerpt that says its size ([Excerpt]), never whole. Collectors of several sessions or workers combine
// with [Collector.Merge].
//
// [Collector.Report] builds a [Report], a plain value whose JSON field names
// are a contract tools and CI rely on (see DESIGN.md, "Report (JSON)"). Its
// summary names the run: run_id is a random UUID made once per Collector,
// that is once per replay ([WithRunID] sets it instead); the text summary's
// first line, the JUnit properties and the HTML page show it too.
// It is written by:
//   - [Report.WriteJSON]: the contract, plus extras such as
//     performance.latency_histogram and thresholds;
//   - [Report.WriteText]: a summary for a terminal;
//   - [Report.WriteJUnit]: JUnit XML for CI — a test suite per session, a
//     test case per checked message, failures with their differences,
//     errors and timeouts, and a "thresholds" suite;
//   - [Report.WriteHTML]: one self-contained page (inline CSS and SVG, no
//     script, nothing loaded from elsewhere) with charts of the timeline,
//     the latency over time and the latency histogram;
//   - [WriteFile], which writes atomically in the format the file's
//     extension names (.json, .xml, .html); [CheckPath] checks the name
//     and that its folder takes a new file, before a replay.
//
// Reports merge exactly. The JSON report carries a "histograms" section
// ([Histograms]): the four histograms in HdrHistogram's V2 compressed
// encoding (base64), all of one configuration, with their exact counts,
// sums, minimums and maximums, and the request spans the load section
// needs. [Read] (or [Parse]) reads a report back, and [Merge] combines
// reports by rebuilding each one's collector and merging them with
// [Collector.Merge], so that the merged report is the one a single
// collector fed every result would build: its percentiles are those of one
// histogram of all the samples.
//
// The report breaks its figures down by method (per_method) and by the
// tool, prompt or resource a request names (per_name, from
// [Result.Name]), each with a latency histogram of its own that merges
// as the totals do ([WithMethodLimit] bounds them). The handshake
// (initialize, notifications/initialized, server/discover) waits for the
// target to start: its latency is reported apart (the handshake section)
// and left out of the headline latency unless [IncludeHandshake] is given.
//
// Thresholds are pass/fail conditions on the report's metrics, written
// k6-style ("p99<200ms", "error_rate<1%", "validation_failed==0"), on the
// whole run or, with a filter as k6's tags, on one method, tool, prompt or
// resource ("p99{method:tools/call}<200ms", "error_rate{tool:search}<1%"):
// [ParseThreshold] reads one, [Report.Evaluate] judges them, and
// [Report.ApplyThresholds] keeps the results in the report, which fails
// ([Report.Passed] is false) when one of them does. A latency threshold
// with nothing measured ("no data") fails, and so does a load threshold
// ("load_delivered==true", "late==0", "achieved_rate>400") on a replay at
// speed fast or stepped, which has no load section.
//
// Nothing the user marked secret may appear in any of them: the one
// redactor of replayctl, tape.Redactor (tape.RedactorOf), hides the
// secrets (values a config or a header took from the environment) in
// every encoding an output can give them — JSON and Go escapes, HTML and
// XML references, URL escapes, base64, up to three layers deep, and the
// lossy forms of the writers — in results ([Redact], before any value is
// cut short), in a report ([RedactReport]) and in rendered bytes
// ([WriteFile], tape.Redactor.Writer). [Redact] also masks the
// credentials a tape or a server carries under a secret name of the
// redaction policy (tape.Sensitive: authorization, db_password, api_key,
// token, …) in a result's messages and differences.
//
// Definitions used throughout:
//   - latency = Answered − Sent; latency from intended = Answered − Due (the
//     coordinated-omission-free view). The time from Due to Sent splits
//     into held time (waiting for causal order or the in-flight limit: the
//     target set that pace) and schedule lag (the replayer late):
//     Due + Held + Lag ≈ Sent.
//   - load (paced speeds only: realtime, Nx, fixed:, rps:): intended and
//     achieved request rates over the due and the send times, the client
//     messages more than [LateAfter] late, and whether the load was
//     delivered (lag p99 ≤ LateAfter; held time does not count against
//     it), with a verdict sentence.
//   - Histograms have microsecond resolution, 3 significant digits and a
//     range of 0..1h; values outside are clamped into it and counted
//     ("clamped"). Percentiles are HDR values, capped by the exact min and max.
//   - success_rate = passed / (checked + errors + timeouts), and 1 when that
//     is zero: a run where every request timed out did not succeed.
//   - error_rate = (errors + timeouts) / requests sent, capped at 1; with no
//     request sent it is 1 if there was any error and 0 otherwise.
//   - throughput_per_s = requests answered / duration.
package report
