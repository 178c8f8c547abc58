// Package metrics counts a replay from its event stream (package
// engine/event) and serves the counts in the Prometheus text exposition
// format (version 0.0.4), so that a team's Prometheus and Grafana can
// watch a long replay while it runs.
//
// A [Metrics] is a consumer of the stream ([Metrics.Consumer], or
// [Metrics.Observe] for each event) and an http.Handler ([Metrics.ServeHTTP]):
//
//	m := metrics.New(metrics.Info("command", "run"))
//	r, _ := replay.New(src, replay.Events(m.Consumer()))
//	http.Handle("/metrics", m)
//
// Observing an event costs a few atomic additions and, for a method
// not seen before, one copy of a small map under a lock; a scrape reads
// the atomics and takes no lock the observer waits for (beyond that
// copy). Method labels are bounded ([MethodLimit]): methods past the
// limit are counted under method="(other)".
//
// The names follow Prometheus's conventions: counters end in _total,
// durations are in seconds (_seconds), one run's constant facts are the
// labels of replayctl_run_info. See the README's "Metrics" section for
// the list.
//
// The text format is written here rather than through
// prometheus/client_golang: a scrape is a few dozen series built from
// atomics, and the library would bring its registry, protobuf and
// a dozen modules for that.
package metrics
