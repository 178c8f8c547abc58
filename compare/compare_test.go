package compare_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/compare"
	"github.com/replayctl/replayctl/internal/testserver/volatilemcp"
	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// calls is how many calls of each tool the test tapes make.
const calls = 20

// volatileTape records a session against the volatile server: the
// handshake, tools/list, then n rounds of stamp, greet and add.
func volatileTape(t testing.TB, n int) string {
	t.Helper()
	msgs := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"compare-test","version":"0"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
	}
	id := 2
	for i := range n {
		for _, call := range []string{
			`{"name":"stamp","arguments":{}}`,
			fmt.Sprintf(`{"name":"greet","arguments":{"name":"user %d"}}`, i),
			fmt.Sprintf(`{"name":"add","arguments":{"a":%d,"b":%d}}`, i, 2*i),
		} {
			msgs = append(msgs, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, call))
			id++
		}
	}
	d := transport.Pipe{Serve: func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		return volatilemcp.Server().Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	}}
	return testtape.Record(t, d, testtape.TransportStdio, msgs)
}

// serve starts the volatile server with opts on a loopback port, stopped
// when the test ends, and returns it as a target.
func serve(t testing.TB, opts ...volatilemcp.Option) replay.Target {
	t.Helper()
	srv := httptest.NewServer(volatilemcp.Handler(opts...))
	t.Cleanup(srv.Close)
	return replay.HTTP(srv.URL)
}

func run(t *testing.T, tapePath string, primary, candidate replay.Target, opts ...compare.Option) *compare.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts = append([]compare.Option{compare.ReplayOptions(replay.WithSpeed(replay.Fast()), replay.Timeout(20*time.Second),
		replay.Logger(zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)))}, opts...)
	rep, err := compare.Run(ctx, tapePath, primary, candidate, opts...)
	if err != nil {
		t.Fatalf("compare.Run: %v", err)
	}
	for _, r := range rep.Runs {
		if r.Status == 3 || r.Error != "" {
			t.Fatalf("the %s run failed: status %d, %s", r.Role, r.Status, r.Error)
		}
	}
	return rep
}

// pathOf finds a path among p.
func pathOf(paths []compare.Path, method, name, path string) (compare.Path, bool) {
	for _, p := range paths {
		if p.Method == method && p.Name == name && p.Path == path {
			return p, true
		}
	}
	return compare.Path{}, false
}

// TestSameServerReportsNothing: the same server as primary, candidate and
// secondary answers with random ids, random numbers and the time, and
// compare reports no path; the volatile values are seen (as noise), not
// hidden.
func TestSameServerReportsNothing(t *testing.T) {
	tp := volatileTape(t, calls)
	for _, c := range []struct {
		name      string
		secondary bool
	}{{"secondary", true}, {"primary twice", false}} {
		t.Run(c.name, func(t *testing.T) {
			var opts []compare.Option
			if c.secondary {
				opts = append(opts, compare.Secondary(serve(t)))
			}
			rep := run(t, tp, serve(t), serve(t), opts...)
			if len(rep.Changed) != 0 {
				t.Errorf("changed: got %+v, want none", rep.Changed)
			}
			if got, want := rep.Runs[2].Again, !c.secondary; got != want {
				t.Errorf("secondary run again: got %v, want %v", got, want)
			}
			// 2 + 3n answers: initialize, tools/list, the calls.
			if got, want := rep.Summary.Compared, 2+3*calls; got != want {
				t.Errorf("compared: got %d, want %d", got, want)
			}
			for _, path := range []string{"result.structuredContent.id", "result.structuredContent.nonce", "result.structuredContent.unix_ms", "result.content[0].text"} {
				p, ok := pathOf(rep.Paths, "tools/call", "stamp", path)
				if !ok || p.Raw != calls || p.Noise != calls || p.Total != calls {
					t.Errorf("stamp %s: got %+v (found %v), want raw = noise = total = %d", path, p, ok, calls)
				}
			}
			// The time as text is normalised away; the stable member never differs.
			for _, path := range []string{"result.structuredContent.at", "result.structuredContent.stable"} {
				if p, ok := pathOf(rep.Paths, "tools/call", "stamp", path); ok {
					t.Errorf("stamp %s differs: %+v", path, p)
				}
			}
		})
	}
}

// TestRandomOrderOneSeed: with a random order and no seed, the primary
// picks one and the other runs replay with it: the same schedule.
func TestRandomOrderOneSeed(t *testing.T) {
	tp := volatileTape(t, 3)
	rep := run(t, tp, serve(t), serve(t), compare.ReplayOptions(replay.Order("random")))
	if rep.Seed == nil {
		t.Fatal("seed: got none, want the primary's random seed")
	}
	if len(rep.Changed) != 0 {
		t.Errorf("changed: got %+v, want none", rep.Changed)
	}
	fixed := run(t, tp, serve(t), serve(t), compare.ReplayOptions(replay.Order("random"), replay.Seed(7)))
	if fixed.Seed != nil {
		t.Errorf("seed given: got %d picked, want none picked", *fixed.Seed)
	}
}

// TestChangedFieldReported: a candidate whose greet answers another
// language is reported at exactly that path of that tool.
func TestChangedFieldReported(t *testing.T) {
	tp := volatileTape(t, calls)
	rep := run(t, tp, serve(t), serve(t, volatilemcp.WithLang("fr")))
	if len(rep.Changed) != 1 {
		t.Fatalf("changed: got %+v, want one path", rep.Changed)
	}
	p := rep.Changed[0]
	if p.Method != "tools/call" || p.Name != "greet" || p.Path != "result.structuredContent.lang" || p.Raw != calls || p.Noise != 0 || p.Total != calls {
		t.Errorf("changed: got %+v, want tools/call greet result.structuredContent.lang raw %d noise 0", p, calls)
	}
	if p.Example == nil || string(p.Example.Primary) != `"en"` || string(p.Example.Candidate) != `"fr"` {
		t.Errorf("example: got %+v, want \"en\" → \"fr\"", p.Example)
	}
	if !rep.Different() {
		t.Error("Different: got false, want true")
	}
	checkWriters(t, rep)
}

// checkWriters checks that the text, JSON and HTML of a report with one
// changed path (greet's language) show it.
func checkWriters(t *testing.T, rep *compare.Report) {
	t.Helper()
	var text, js, page bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("text:\n%s", text.String())
	for _, want := range []string{"changed: 1 path", "tools/call greet", "result.structuredContent.lang", `"en" → "fr"`, "noise:", "latency"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text: no %q in\n%s", want, text.String())
		}
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back compare.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if len(back.Changed) != 1 || back.Changed[0].Path != "result.structuredContent.lang" || back.Summary != rep.Summary {
		t.Errorf("JSON: got changed %+v, summary %+v; want the report's", back.Changed, back.Summary)
	}
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!doctype html>", "Changed: 1", "result.structuredContent.lang", "&#34;en&#34;"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML: no %q", want)
		}
	}
	if strings.Contains(page.String(), "<script") {
		t.Error("HTML: has a script; want a page that runs none")
	}
}

// TestSlowerCandidateInLatency: a candidate 50ms slower per tools/call
// shows in the latency comparison of tools/call and of each tool, and in
// no answer. (50ms, not less: on a loaded machine the primary's own
// latencies, cold in the first run, reach 20ms and more.)
func TestSlowerCandidateInLatency(t *testing.T) {
	const delay = 50 * time.Millisecond
	tp := volatileTape(t, calls)
	rep := run(t, tp, serve(t), serve(t, volatilemcp.WithDelay(delay)))
	if len(rep.Changed) != 0 {
		t.Errorf("changed: got %+v, want none", rep.Changed)
	}
	found := 0
	for _, l := range rep.Latency {
		if l.Method != "tools/call" {
			continue
		}
		found++
		if !l.Changed || l.ProbSlower <= 0.5 || l.Candidate.P50 < float64(delay.Milliseconds()) {
			t.Errorf("%s %s latency: got %+v, want changed, candidate slower, p50 ≥ %v", l.Method, l.Name, l, delay)
		}
	}
	if found != 4 { // the method and its three tools
		t.Errorf("tools/call latencies: got %d, want 4 (method, stamp, greet, add)", found)
	}
	if rep.Summary.LatencyChanged < 4 {
		t.Errorf("latency changed: got %d, want at least 4", rep.Summary.LatencyChanged)
	}
}

// TestCandidateDown: a candidate that refuses connections fails its run
// (status 3), and every answer it did not give is a change at "$".
func TestCandidateDown(t *testing.T) {
	tp := volatileTape(t, 3)
	srv := httptest.NewServer(volatilemcp.Handler())
	down := replay.HTTP(srv.URL)
	srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := compare.Run(ctx, tp, serve(t), down, compare.ReplayOptions(replay.WithSpeed(replay.Fast()), replay.Timeout(10*time.Second)))
	if err != nil {
		t.Fatalf("compare.Run: %v", err)
	}
	if rep.Runs[1].Status != 3 || rep.Summary.TargetFailed != 1 {
		t.Errorf("candidate run: got %+v, summary %+v; want status 3, one target failed", rep.Runs[1], rep.Summary)
	}
	if len(rep.Changed) == 0 {
		t.Fatal("changed: got none, want the missing answers")
	}
	for _, p := range rep.Changed {
		if p.Path != "$" || p.Example == nil || p.Example.Candidate != nil {
			t.Errorf("changed: got %+v, want a missing answer at $", p)
		}
	}
}

// TestBadInput: bad options and targets are errors before anything is
// replayed, named.
func TestBadInput(t *testing.T) {
	tp := volatileTape(t, 1)
	good := replay.HTTP("http://127.0.0.1:1/mcp")
	for _, c := range []struct {
		name      string
		candidate replay.Target
		opts      []compare.Option
		check     func(error) bool
	}{
		{"negative relative margin", good, []compare.Option{compare.RelativeMargin(-1)}, optionError("RelativeMargin")},
		{"absolute margin over 100", good, []compare.Option{compare.AbsoluteMargin(101)}, optionError("AbsoluteMargin")},
		{"alpha 1", good, []compare.Option{compare.LatencyAlpha(1)}, optionError("LatencyAlpha")},
		{"negative min effect", good, []compare.Option{compare.LatencyMinEffect(-0.5)}, optionError("LatencyMinEffect")},
		{"bad ignore pattern", good, []compare.Option{compare.Ignore("result[")}, optionError("Ignore or Normalize")},
		{"unknown normaliser", good, []compare.Option{compare.Normalize("nope")}, optionError("Ignore or Normalize")},
		{"candidate URL without scheme", replay.HTTP("127.0.0.1:3000/mcp"), nil, func(err error) bool {
			var re *compare.RunError
			var oe *replay.OptionError
			return errors.As(err, &re) && re.Role == compare.RoleCandidate && errors.As(err, &oe)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := compare.Run(context.Background(), tp, good, c.candidate, c.opts...)
			if rep != nil || err == nil || !c.check(err) {
				t.Errorf("got %v, %v; want no report and the error named", rep, err)
			}
		})
	}
	if _, err := compare.Run(context.Background(), "no-such.jsonl", good, good); err == nil {
		t.Error("a missing tape: got no error")
	}
	// A line torn in the middle of the tape stops the first run there:
	// an error naming the line, no report.
	b, err := os.ReadFile(tp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[3] = lines[3][:len(lines[3])/2] + "\n"
	torn := filepath.Join(t.TempDir(), "torn.jsonl")
	if err := os.WriteFile(torn, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := serve(t)
	rep, err := compare.Run(context.Background(), torn, srv, srv, compare.ReplayOptions(replay.WithSpeed(replay.Fast())))
	var te *tape.Error
	var re *compare.RunError
	if rep != nil || !errors.As(err, &re) || re.Role != compare.RolePrimary || !errors.As(err, &te) || te.Line != 4 {
		t.Errorf("a torn line 4: got %v, %v; want no report and the tape's error at line 4 in the primary's run", rep, err)
	}
}

func optionError(name string) func(error) bool {
	return func(err error) bool {
		var oe *compare.OptionError
		return errors.As(err, &oe) && oe.Option == name
	}
}
