package debug_test

import (
	"context"
	"fmt"

	"github.com/replayctl/replayctl/debug"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
)

// Step through a tape against the built-in mock (which answers from the
// tape): the handshake, a breakpoint on a method, a step, and the
// expected-vs-actual view of the last answer. A program drives the
// session with the same commands `replayctl debug` reads, parsed here.
func Example() {
	s, err := debug.New(tape.File("../examples/quickstart.jsonl"),
		debug.OnShow(func(r report.Result) { fmt.Printf("→ seq %d %s: %s\n", r.Seq, r.Method, r.Verdict) }))
	if err != nil {
		fmt.Println(err)
		return
	}
	where := func(p debug.Place) {
		fmt.Printf("%s (%s) before seq %d %s\n", p.Status.State, p.Status.Reason, p.Next.Seq, p.Next.Method)
	}
	rep, err := s.Run(context.Background(), func(ctx context.Context) error {
		p, err := s.Begin(ctx) // replays the initialize handshake
		if err != nil {
			return err
		}
		where(p)
		for _, line := range []string{"break resources/list", "continue", "step"} {
			c, err := debug.Parse(line)
			if err != nil {
				return err
			}
			fmt.Println(line)
			switch c := c.(type) {
			case debug.Break:
				if _, err := s.Break(ctx, c.Spec); err != nil {
					return err
				}
			case debug.Continue:
				if p, err = s.Continue(ctx); err != nil {
					return err
				}
				where(p)
			case debug.Step:
				if p, err = s.Step(ctx, c.N); err != nil {
					return err
				}
				where(p)
			}
		}
		v, err := s.View()
		if err != nil {
			return err
		}
		fmt.Printf("last answer: seq %d %s %s, %d differences\n", v.Seq, v.Method, v.Verdict, len(v.Differences))
		return nil // ends the session
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("checked:", rep.Validation.Checked, "passed:", rep.Passed())
	// Output:
	// → seq 0 initialize: passed
	// → seq 2 notifications/initialized: sent
	// paused (step) before seq 3 tools/list
	// break resources/list
	// continue
	// → seq 3 tools/list: passed
	// → seq 5 tools/call: passed
	// → seq 7 tools/call: passed
	// paused (breakpoint 1 (method resources/list)) before seq 10 resources/list
	// step
	// → seq 10 resources/list: passed
	// paused (step) before seq 12 resources/read
	// last answer: seq 10 resources/list passed, 0 differences
	// checked: 5 passed: true
}
