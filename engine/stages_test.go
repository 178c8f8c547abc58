package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/scheduler"
	"github.com/replayctl/replayctl/transformer"
	"github.com/replayctl/replayctl/transport"
)

var fastSpeed = scheduler.Speed{Mode: scheduler.Fast}

// TestTransformRules: the config's rules, applied in the transform stage:
// a dropped message is not replayed and counts as skipped, an
// inject_error request is answered by the rule, add_delay sends later
// than due, and a BeforeSend hook may edit or drop what goes out.
func TestTransformRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		five, seven, twelve := int64(5), int64(7), int64(12)
		rules, err := transformer.Compile([]transformer.RuleSpec{
			{Condition: transformer.Condition{Method: "ping"}, Action: transformer.Action{Drop: true}},
			{Condition: transformer.Condition{Method: "tools/list"}, Action: transformer.Action{InjectError: &transformer.InjectError{Code: -32000, Message: "injected"}}},
			{Condition: transformer.Condition{Seq: &seven}, Action: transformer.Action{AddDelay: 50 * time.Millisecond}},
		})
		if err != nil {
			t.Fatal(err)
		}
		results := map[int64]report.Result{}
		cfg := withMock(Config{Tape: "../examples/quickstart.jsonl", Speed: fastSpeed, Rules: rules})
		cfg.Hooks.BeforeSend = func(m *transformer.Msg) bool {
			switch m.Seq {
			case five:
				m.Raw = []byte(strings.Replace(string(m.Raw), `hello, replay`, `edited`, 1))
			case twelve:
				return false
			}
			return true
		}
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.OnResult(func(r report.Result) { results[r.Seq] = r })
		rep, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := results[16]; ok {
			t.Error("the dropped ping was replayed")
		}
		if _, ok := results[12]; ok {
			t.Error("the message BeforeSend dropped was replayed")
		}
		if rep.Summary.Skipped < 2 {
			t.Errorf("skipped %d, want the 2 dropped counted", rep.Summary.Skipped)
		}
		if r := results[3]; !strings.Contains(string(r.Answer), "injected") {
			t.Errorf("tools/list answered %s, want the injected error", r.Answer)
		}
		if r := results[5]; !strings.Contains(string(r.Out), `"edited"`) {
			t.Errorf("seq 5 went out as %s, want the hook's edit", r.Out)
		}
		if r := results[7]; r.Sent.Sub(r.Due) != 0 || r.Due.Sub(results[5].Sent) != 50*time.Millisecond {
			t.Errorf("seq 7 due %s after seq 5 was sent, sent %s after due; want 50ms (add_delay), and on time", r.Due.Sub(results[5].Sent), r.Sent.Sub(r.Due))
		}
	})
}

// TestRestoreEnvAndInvalidLines: an env marker of a redaction is filled
// from RestoreEnv before the message is sent (a missing one is sent as it
// is, with a warning), and a recorded line that is not JSON-RPC is
// reported in the warnings.
func TestRestoreEnvAndInvalidLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	tape := `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}
{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}}
{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"city":"[redacted:env:CITY]","other":"[redacted:env:MISSING]"}}}}
{"type":"message","seq":3,"t_us":30,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}
{"type":"message","seq":4,"t_us":40,"session":"s1","dir":"s2c","msg":{"not":"jsonrpc"}}
`
	if err := os.WriteFile(path, []byte(tape), 0o600); err != nil {
		t.Fatal(err)
	}
	var out []byte
	e, err := New(withMock(Config{Tape: path, Speed: fastSpeed, RestoreEnv: map[string]string{"CITY": "Paris"}}))
	if err != nil {
		t.Fatal(err)
	}
	e.OnResult(func(r report.Result) {
		if r.Seq == 2 {
			out = r.Out
		}
	})
	rep, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"city":"Paris"`) || !strings.Contains(string(out), "[redacted:env:MISSING]") {
		t.Errorf("sent %s, want CITY put back and MISSING left as it is", out)
	}
	var missing, invalid bool
	for _, w := range rep.Summary.Warnings {
		missing = missing || strings.Contains(w, "$MISSING")
		invalid = invalid || strings.Contains(w, "not valid JSON-RPC")
	}
	if !missing || !invalid {
		t.Errorf("warnings %q: want the missing env value and the invalid line", rep.Summary.Warnings)
	}
}

// TestEventsOfARun: a run with an event consumer gets every message's
// judged event and, last, the run's end; a consumer that fails is named
// in the report's warnings.
func TestEventsOfARun(t *testing.T) {
	var evs []event.Event
	failing := errors.New("disk full")
	cfg := Config{Tape: "../examples/quickstart.jsonl", Speed: fastSpeed, Events: []event.Consumer{
		{Name: "all", Handle: func(b []event.Event) error { evs = append(evs, b...); return nil }},
		{Name: "broken", Handle: func([]event.Event) error { return failing }},
	}}
	e, err := New(withMock(cfg))
	if err != nil {
		t.Fatal(err)
	}
	results := 0
	e.OnResult(func(report.Result) { results++ })
	rep, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var judged int
	for _, ev := range evs {
		if ev.Type == event.Judged {
			judged++
		}
	}
	if judged != results || results < 9 {
		t.Errorf("%d judged events, want one per result", judged)
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != event.RunEnded {
		t.Errorf("last event %+v, want the run's end", evs[len(evs)-1])
	}
	var named bool
	for _, w := range rep.Summary.Warnings {
		named = named || strings.Contains(w, "broken failed") && strings.Contains(w, "disk full")
	}
	if !named {
		t.Errorf("warnings %q: want the failed consumer named", rep.Summary.Warnings)
	}
}

// TestSteppedRun: at stepped speed each value of Step lets one message
// through the gate; a Step channel closed before the tape ends stops the
// replay with ErrStepsEnded.
func TestSteppedRun(t *testing.T) {
	steps := make(chan struct{}, 20)
	for range 9 {
		steps <- struct{}{}
	}
	rep, err := replay(t, Config{Tape: "../examples/quickstart.jsonl", Speed: scheduler.Speed{Mode: scheduler.Stepped}, Step: steps})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Validation.Passed != 8 {
		t.Errorf("passed %d, want 8", rep.Validation.Passed)
	}
	short := make(chan struct{}, 3)
	for range 3 {
		short <- struct{}{}
	}
	close(short)
	if _, err := replay(t, Config{Tape: "../examples/quickstart.jsonl", Speed: scheduler.Speed{Mode: scheduler.Stepped}, Step: short}); !errors.Is(err, ErrStepsEnded) {
		t.Errorf("Run = %v, want ErrStepsEnded", err)
	}
}

// TestSteppedLagLeavesOutTheWait: at stepped speed the time a message
// waits for its step (a person pressing Enter) is not schedule lag: replay
// time stands still while the gate is closed, as under the debugger.
// Each step comes a second after the last (synctest's clock); the lag was
// a second a message.
func TestSteppedLagLeavesOutTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		steps := make(chan struct{})
		go func() {
			defer close(steps)
			for range 9 {
				time.Sleep(time.Second)
				steps <- struct{}{}
			}
		}()
		rep, err := replay(t, Config{Tape: "../examples/quickstart.jsonl", Speed: scheduler.Speed{Mode: scheduler.Stepped}, Step: steps})
		if err != nil {
			t.Fatal(err)
		}
		if lag := rep.Performance.ScheduleLagMS; lag.Count == 0 || lag.Max >= 1000 {
			t.Errorf("schedule lag %+v: want the messages' lag without the second each waited for its step", lag)
		}
	})
}

// TestInjectAndLookup: under a controller, Lookup reads any message of
// the tape by seq, and Inject sends a message on a session's connection
// and reports its answer with seq -1.
func TestInjectAndLookup(t *testing.T) {
	e, err := New(withMock(Config{Tape: "../examples/quickstart.jsonl", Speed: fastSpeed}))
	if err != nil {
		t.Fatal(err)
	}
	c := controller.New(e)
	e.Attach(c)
	injected := make(chan report.Result, 1)
	e.OnResult(func(r report.Result) {
		if r.Seq == -1 {
			injected <- r
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return c.Run(gctx) })
	g.Go(func() error { _, err := e.Run(gctx); return err })

	if m, ok := e.Lookup(5); !ok || m.Method != "tools/call" || m.Seq != 5 {
		t.Errorf("Lookup(5) = %+v, %v; want the tools/call at seq 5", m, ok)
	}
	if _, ok := e.Lookup(99); ok {
		t.Error("Lookup(99) found a message past the end")
	}
	if err := e.Inject(ctx, "nope", []byte(`{"jsonrpc":"2.0","id":"x","method":"ping"}`)); err == nil || !strings.Contains(err.Error(), `no session "nope"`) {
		t.Errorf("Inject into a session the tape does not have: %v, want an error naming it", err)
	}
	if _, err := c.Step(ctx, 1); err != nil { // the session starts
		t.Fatal(err)
	}
	if err := e.Inject(ctx, "", []byte(`not json`)); err == nil {
		t.Error("Inject of bytes that are not JSON-RPC: no error")
	}
	if err := e.Inject(ctx, "", []byte(`{"jsonrpc":"2.0","id":"x","method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-injected:
		if r.Answered.IsZero() {
			t.Errorf("the injected ping: %+v, want answered", r)
		}
	case <-ctx.Done():
		t.Fatal("no result for the injected ping")
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	_ = g.Wait()
}

func TestParseOrder(t *testing.T) {
	for in, want := range map[string]Order{"": OrderCausal, "causal": OrderCausal, "sequential": OrderSequential, "none": OrderNone, "random": OrderRandom} {
		if got, err := ParseOrder(in); err != nil || got != want {
			t.Errorf("ParseOrder(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseOrder("fifo"); err == nil || !strings.Contains(err.Error(), "want causal, sequential, none or random") {
		t.Errorf("ParseOrder(fifo) = %v, want an error that says what is accepted", err)
	}
}

// TestConfigErrors: New refuses a config it cannot run, saying what is
// wrong and what to give.
func TestConfigErrors(t *testing.T) {
	tape := "../examples/quickstart.jsonl"
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no tape", Config{}, "no tape given"},
		{"no target", Config{Tape: tape}, "Config.Dialer is nil"},
		{"a bad speed", withMock(Config{Tape: tape, Speed: scheduler.Speed{Mode: scheduler.Scaled}}), "factor"},
		{"a bad on-error", withMock(Config{Tape: tape, OnError: "pause"}), "want continue or stop"},
		{"a bad order", withMock(Config{Tape: tape, Order: "fifo"}), "want causal"},
		{"negative sessions", withMock(Config{Tape: tape, Sessions: -1}), "must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error saying %q", err, tc.want)
			}
		})
	}
	e, err := New(withMock(Config{Tape: tape}))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Seek(context.Background(), 3); err == nil {
		t.Error("Seek without a controller: no error")
	}
	if err := e.Inject(context.Background(), "", []byte(`{}`)); err == nil {
		t.Error("Inject without a controller: no error")
	}
}

// TestChaosServerDies: under chaos a server that dies is a verdict, not
// the end of the replay: the run finishes, and the session's survival
// says it did not survive, with why.
func TestChaosServerDies(t *testing.T) {
	plan, err := chaos.NewPlan(1, map[chaos.Kind]float64{chaos.Drop: 0.0001}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := transport.Stdio{Command: []string{"sh", "-c", "read line; echo gone >&2; exit 7"}}
	rep, err := replay(t, Config{Tape: "../examples/quickstart.jsonl", Speed: fastSpeed, Dialer: d, Chaos: plan, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("Run = %v, want nil: under chaos the dead server is the verdict", err)
	}
	if len(rep.Chaos.Survival) != 1 || rep.Chaos.Survival[0].Survived {
		t.Fatalf("survival %+v, want the session not to have survived", rep.Chaos.Survival)
	}
	if notes := strings.Join(rep.Chaos.Survival[0].Notes, "; "); !strings.Contains(notes, "exit status 7") && !strings.Contains(notes, "died") {
		t.Errorf("survival notes %q, want why the server died", notes)
	}
}
