package report

import (
	"cmp"
	"slices"

	"github.com/replayctl/replayctl/mcp"
)

// DefaultMethodLimit bounds the methods, and apart from them the names
// (tools, prompts, resources), a report breaks its figures down by; the
// results of the rest are counted in per_method_omitted and
// per_name_omitted (totals stay exact). Each one broken down keeps a
// latency histogram of its own.
const DefaultMethodLimit = 100

// MethodSummary is one line of the report's per_method list (Name empty)
// or per_name list: the results of one method, or of one tool, prompt or
// resource. Results with no method (the client's answers to server
// requests, a target that died) are in neither.
type MethodSummary struct {
	Method string `json:"method"`
	// Name is the tool (tools/call), the prompt (prompts/get) or the
	// resource's uri (resources/read); per_name only.
	Name string `json:"name,omitempty"`
	// Handshake marks initialize, notifications/initialized and
	// server/discover, whose latency the headline figures leave out
	// unless the replay includes it (see [Handshake]).
	Handshake bool `json:"handshake,omitempty"`
	// Results counts the messages of it replayed, judged or skipped.
	Results  int64 `json:"results"`
	Sent     int64 `json:"sent"`     // client messages sent
	Requests int64 `json:"requests"` // client requests sent
	Answered int64 `json:"answered"` // requests answered in time
	Passed   int64 `json:"passed"`   // checks passed (warnings included)
	Failed   int64 `json:"failed"`
	Warnings int64 `json:"warnings"`
	Errors   int64 `json:"errors"`
	Timeouts int64 `json:"timeouts"`
	// ErrorRate is (errors + timeouts) / requests, as performance's.
	ErrorRate float64 `json:"error_rate"`
	// SuccessRate is passed / (passed + failed + errors + timeouts), 1
	// when there is none of them, as the summary's.
	SuccessRate float64 `json:"success_rate"`
	LatencyMS   Stats   `json:"latency_ms"`
}

// Handshake is the report's "handshake" section: the requests that open a
// conversation (initialize; server/discover in the stateless era), apart
// from the work. A handshake waits for the target to start, so by default
// its latency is left out of performance's (latency_ms,
// latency_from_intended_ms, latency_histogram, throughput) and so out of
// the thresholds on them; [IncludeHandshake] puts it back. Its errors,
// timeouts and failures count as any other's.
type Handshake struct {
	// Included says whether the performance section's latency figures
	// include the handshake's.
	Included  bool  `json:"included"`
	Requests  int64 `json:"requests"`
	Answered  int64 `json:"answered"`
	Errors    int64 `json:"errors"`
	Timeouts  int64 `json:"timeouts"`
	LatencyMS Stats `json:"latency_ms"`
}

// IncludeHandshake counts the handshake's latencies (initialize,
// server/discover) in the report's headline latency, its latency from
// intended, its histogram and its throughput, as any other request's.
// Without it they are reported apart, in the handshake section.
func IncludeHandshake() Option { return func(c *Collector) { c.includeHandshake = true } }

// WithMethodLimit breaks the report's figures down by at most n methods,
// and by at most n names (default DefaultMethodLimit); the results of the
// rest are counted in per_method_omitted and per_name_omitted. The
// handshake's methods are always broken down. n <= 0 breaks down none
// but the handshake.
func WithMethodLimit(n int) Option { return func(c *Collector) { c.methodLimit = max(n, 0) } }

// groupKey names a group of results: a method, or a method and a name.
type groupKey struct{ method, name string }

// group is what the collector keeps of one method or name: counts and,
// once a request of it is answered, a latency histogram.
type group struct {
	MethodSummary
	latency *hist
}

// addGroups counts r in its method's group and, when it has a name, in
// its name's.
func (c *Collector) addGroups(r *Result, sent, isRequest bool, f Figures) {
	if r.Method == "" {
		return
	}
	if g := c.methodGroup(groupKey{method: r.Method}); g != nil {
		c.giveHist(g, isRequest, f)
		g.add(r, sent, isRequest, f)
	} else {
		c.methodsOmitted++
	}
	if r.Name != "" {
		if g := c.nameGroup(groupKey{r.Method, r.Name}); g != nil {
			c.giveHist(g, isRequest, f)
			g.add(r, sent, isRequest, f)
		} else {
			c.namesOmitted++
		}
	}
}

// giveHist gives g one of the collector's spare histograms
// (WithGroupHistograms) when it is about to count its first answer.
func (c *Collector) giveHist(g *group, isRequest bool, f Figures) {
	if g.latency != nil || !isRequest || !f.HasLatency || len(c.spareHists) == 0 {
		return
	}
	last := len(c.spareHists) - 1
	g.latency, c.spareHists[last] = c.spareHists[last], nil
	c.spareHists = c.spareHists[:last]
}

// methodGroup finds or makes the group of a method, or returns nil when
// the limit is reached; the handshake's do not count against it.
func (c *Collector) methodGroup(k groupKey) *group {
	if g, ok := c.methods[k]; ok {
		return g
	}
	handshake := mcp.IsHandshake(k.method)
	if !handshake {
		if c.methodGroups >= c.methodLimit {
			return nil
		}
		c.methodGroups++
	}
	g := &group{MethodSummary: MethodSummary{Method: k.method, Handshake: handshake}}
	c.methods[k] = g
	return g
}

// nameGroup finds or makes the group of a name, or returns nil when the
// limit is reached.
func (c *Collector) nameGroup(k groupKey) *group {
	if g, ok := c.names[k]; ok {
		return g
	}
	if len(c.names) >= c.methodLimit {
		return nil
	}
	g := &group{MethodSummary: MethodSummary{Method: k.method, Name: k.name}}
	c.names[k] = g
	return g
}

func (g *group) add(r *Result, sent, isRequest bool, f Figures) {
	g.Results++
	if sent {
		g.Sent++
	}
	if isRequest {
		g.Requests++
		if f.HasLatency {
			g.Answered++
			if g.latency == nil {
				h := newHist()
				g.latency = &h
			}
			g.latency.record(f.Latency)
		}
	}
	switch r.Verdict {
	case Passed:
		g.Passed++
	case Warned:
		g.Passed++
		g.Warnings++
	case Failed:
		g.Failed++
	case Timeout:
		g.Timeouts++
	case Error:
		g.Errors++
	case Skipped, Sent:
	default:
		g.Errors++ // an unknown verdict counts as an error, as in the totals
	}
}

// merge adds o's counts and histogram to g.
func (g *group) merge(o *group) {
	g.Results += o.Results
	g.Sent += o.Sent
	g.Requests += o.Requests
	g.Answered += o.Answered
	g.Passed += o.Passed
	g.Failed += o.Failed
	g.Warnings += o.Warnings
	g.Errors += o.Errors
	g.Timeouts += o.Timeouts
	if o.latency != nil {
		if g.latency == nil {
			h := newHist()
			g.latency = &h
		}
		g.latency.merge(o.latency)
	}
}

// mergeGroups adds the groups of o to those of c, making new ones within
// c's limit and counting the results of the others omitted.
func (c *Collector) mergeGroups(o *Collector) {
	// In a fixed order, so that which groups fit the limit does not
	// depend on the maps'.
	for _, k := range sortedKeys(o.methods) {
		if g := c.methodGroup(k); g != nil {
			g.merge(o.methods[k])
		} else {
			c.methodsOmitted += o.methods[k].Results
		}
	}
	for _, k := range sortedKeys(o.names) {
		if g := c.nameGroup(k); g != nil {
			g.merge(o.names[k])
		} else {
			c.namesOmitted += o.names[k].Results
		}
	}
	c.methodsOmitted += o.methodsOmitted
	c.namesOmitted += o.namesOmitted
}

func sortedKeys(m map[groupKey]*group) []groupKey {
	keys := make([]groupKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		return cmp.Or(naturalCompare(a.method, b.method), naturalCompare(a.name, b.name))
	})
	return keys
}

// summaries lists the groups of m, by method then name.
func summaries(m map[groupKey]*group) []MethodSummary {
	out := make([]MethodSummary, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k].summary())
	}
	return out
}

func (g *group) summary() MethodSummary {
	s := g.MethodSummary
	s.ErrorRate = errorRate(s.Errors+s.Timeouts, s.Requests)
	s.SuccessRate = ratio(s.Passed, s.Passed+s.Failed+s.Errors+s.Timeouts, 1)
	s.LatencyMS = Stats{}
	if g.latency != nil {
		s.LatencyMS = g.latency.stats()
	}
	return s
}

// handshake builds the handshake section from the handshake's groups.
func (c *Collector) handshake() Handshake {
	h := Handshake{Included: c.includeHandshake}
	all := newHist()
	for _, k := range sortedKeys(c.methods) {
		g := c.methods[k]
		if !g.Handshake {
			continue
		}
		h.Requests += g.Requests
		h.Answered += g.Answered
		h.Errors += g.Errors
		h.Timeouts += g.Timeouts
		if g.latency != nil {
			all.merge(g.latency)
		}
	}
	h.LatencyMS = all.stats()
	return h
}
