package engine

import (
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transport"
)

// maxAllocsPerRequest bounds what replaying one more request (a
// tools/call and its answer, fast, against the built-in mock, every
// answer validated) allocates, the mock's share included: the cost per
// request of BenchmarkPipeline, as a count (issue 24): 21.0 when
// it was written; 17.1 once the mock's index took no key and no slice
// per request and its answer no parse (one allocation left: the answer
// with the live id), so that one allocation more per request fails it;
// 14.1 once the session's actor reused its queue of requests in flight
// and kept the live answer and the outcome in the request's own memory
// (17.0 before); 13.1 (alone) once the loader took its items from blocks
// and transform the request with its fresh id (and the id) from a block
// of bytes; 10.1 with both; 9.2 once the judged events took their
// results from blocks (10.2 before); 5.2 once the report's timeline
// kept each entry's times in one block for all (four allocations an
// entry before: up to report.DefaultTimelineLimit entries, so the count
// per request of a replay longer than that is lower); 7.2–7.3 (alone,
// from 10.1) once the session's actor took its requests in flight from
// blocks and keyed each request's two ids in one string, and the mock
// made its answers with the live id in blocks; 2.3 with both; 1.2 once
// the actor keyed a request whose ids are plain integers by their
// values (no string for the two ids); 0.2 once validate made the
// string of a tool's name once (mcp.Names), not for every request.
const maxAllocsPerRequest = 1

func TestPipelineAllocsPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 3,000 requests")
	}
	if raceDetector {
		t.Skip("the race detector allocates on its own: run without -race")
	}
	dir := t.TempDir()
	allocs := func(n int) float64 {
		path := writeTape(t, dir, n, 1000, nil)
		return testing.AllocsPerRun(1, func() {
			rep, err := replay(t, Config{Tape: path, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop()})
			if err != nil || rep.Validation.Passed != int64(n+1) {
				t.Fatalf("passed %d of %d: %v", rep.Validation.Passed, n+1, err)
			}
		})
	}
	small, large := allocs(1000), allocs(2000)
	per := (large - small) / 1000
	t.Logf("%.1f allocations per request (%.0f for 1,000 requests, %.0f for 2,000)", per, small, large)
	if per > maxAllocsPerRequest {
		t.Errorf("%.1f allocations per request, want at most %d", per, maxAllocsPerRequest)
	}
}

// maxHTTPAllocsPerRequest bounds what the client allocates to replay
// one more request over Streamable HTTP (a tools/call and its answer,
// fast, the lean client, every answer validated) against the slow test
// server in its own process: the engine's and the transport's share of
// the client CPU per request (issue 24), as a count. 54.4–55.2 when it
// was written, from 56.5 (main at b804010) before the engine handed its requests to
// the connection (transport.AsyncSender), which fails it; 52.0–52.1
// once the session's actor reused its queue of requests in flight and
// kept the live answer and the outcome in the request's own memory
// (55.0 before); 40.1 with the fifth round's transport (reused answers,
// one context hook per connection) and the tape parsed once as well;
// 33.2 with the sixth round's blocks (the actor's requests in flight,
// judged events, the timeline's entries).
const maxHTTPAllocsPerRequest = 34

func TestHTTPAllocsPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 3,000 requests over HTTP")
	}
	if raceDetector {
		t.Skip("the race detector allocates on its own: run without -race")
	}
	d := transport.HTTP{URL: testserver.SlowHTTP(t, "-delay", "0s"), Poster: transport.PosterLean}
	allocs := func(n int) float64 {
		path := testtape.Record(t, d, "", testtape.Conversation("echo", `{"text":"hi"}`, n))
		return testing.AllocsPerRun(1, func() {
			rep, err := replay1(t, Config{Tape: path, Dialer: d, Speed: scheduler.Speed{Mode: scheduler.Fast}, Logger: zerolog.Nop()})
			if err != nil || rep.Validation.Failed != 0 || rep.Validation.Passed < int64(n) {
				t.Fatalf("passed %d, failed %d of %d calls: %v", rep.Validation.Passed, rep.Validation.Failed, n, err)
			}
		})
	}
	// How the goroutines of the client and the sessions meet varies from
	// run to run (a request that finds no connection idle dials one, on
	// a goroutine of its own), and only ever adds allocations: the
	// fewest of three measurements is the cost per request.
	per := math.Inf(1)
	for range 3 {
		small, large := allocs(1000), allocs(2000)
		t.Logf("%.1f allocations per request (%.0f for 1,000 requests, %.0f for 2,000)", (large-small)/1000, small, large)
		per = min(per, (large-small)/1000)
	}
	if per > maxHTTPAllocsPerRequest {
		t.Errorf("%.1f allocations per request, want at most %d", per, maxHTTPAllocsPerRequest)
	}
}
