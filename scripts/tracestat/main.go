// Command tracestat summarises a Go runtime trace of a replay (a test
// binary's -test.trace): for each goroutine, grouped by the function it
// runs (an errgroup's goroutines by the stage they run), the time it
// ran, the time it waited runnable for a processor, and how often it
// blocked and why; who woke whom (goroutine hand-offs); the blocks on a
// mutex and where; and the collector's phases. The window starts at the
// first goroutine of engine/ or mock/ (after a benchmark's set-up). A
// goroutine there before the trace began (a trace started mid-run) is
// named by the first stack of its own the trace gives.
//
//	cd scripts/tracestat && go run . /path/to/trace.out
//
// Its own module, so that replayctl does not depend on
// golang.org/x/exp. BENCHMARKS.md (issue 24, sixth round) has what it
// found.
package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/exp/trace"
)

type gstat struct {
	name         string
	run, runq    trace.Time
	lastRun      trace.Time
	lastRunnable trace.Time
	running      bool
	seen         bool // an event of it was read
	// existing: the goroutine was there when the trace began, named
	// by the first stack of its own the trace gives (see nameByStack).
	existing      bool
	blocks        map[string]int
	starts        int
	wokenByOthers int
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tracestat TRACE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracestat:", err)
		os.Exit(2)
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracestat: %s is not a Go runtime trace: %v\n", os.Args[1], err)
		os.Exit(2)
	}
	gs := map[trace.GoID]*gstat{}
	get := func(id trace.GoID) *gstat {
		g := gs[id]
		if g == nil {
			g = &gstat{name: fmt.Sprintf("goroutine %d", id), blocks: map[string]int{}}
			gs[id] = g
		}
		return g
	}
	wakes := map[[2]string]int{}
	mutexBlocks := map[string]int{}
	ranges := map[string]trace.Time{}
	rangeN := map[string]int{}
	open := map[string]trace.Time{}
	var window0, last trace.Time
	events := 0
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "tracestat: %s: the trace is cut short or damaged after %d events (%v): trace it again, and let the traced process end (a test binary writes -test.trace as it exits)\n", os.Args[1], events, err)
			os.Exit(2)
		}
		events++
		t := ev.Time()
		last = t
		switch ev.Kind() {
		case trace.EventStateTransition:
			st := ev.StateTransition()
			if st.Resource.Kind != trace.ResourceGoroutine {
				continue
			}
			g := get(st.Resource.Goroutine())
			from, to := st.Goroutine()
			named := false
			switch {
			case from == trace.GoNotExist && to == trace.GoRunnable:
				for fr := range st.Stack.Frames() {
					g.name = short(fr.Func)
				}
				named = true
			case from == trace.GoUndetermined && !g.seen:
				// There before the trace began (started mid-run): named
				// by the stack the trace gives with its state, if any
				// (the runtime's goroutines), else by its own first one.
				g.existing = true
				named = nameByStack(g, st.Stack)
			case g.existing && from == trace.GoRunning:
				named = nameByStack(g, ev.Stack())
			}
			g.seen = true
			if from == trace.GoRunning && strings.Contains(g.name, "errgroup") {
				// Name it by the stage it runs: the outermost frame that
				// is neither the errgroup's nor a closure calling it.
				var fs []string
				for fr := range ev.Stack().Frames() {
					fs = append(fs, fr.Func)
				}
				for i := len(fs) - 1; i >= 0; i-- {
					if !strings.Contains(fs[i], "errgroup") && !strings.Contains(fs[i], "goexit") && !closure.MatchString(fs[i]) {
						g.name = "stage " + short(fs[i])
						break
					}
				}
			}
			if named && window0 == 0 && replayName(g.name) {
				window0 = t
			}
			if to == trace.GoRunning {
				g.running, g.lastRun = true, t
				if window0 != 0 {
					g.starts++
				}
				if g.lastRunnable != 0 && window0 != 0 {
					g.runq += t - max(g.lastRunnable, window0)
				}
				g.lastRunnable = 0
			}
			if from == trace.GoRunning {
				if g.running && window0 != 0 {
					g.run += t - max(g.lastRun, window0)
				}
				g.running = false
			}
			if to == trace.GoRunnable {
				g.lastRunnable = t
			}
			if window0 == 0 {
				continue
			}
			if to == trace.GoWaiting {
				g.blocks[st.Reason]++
				if st.Reason == "sync" {
					var fs []string
					for fr := range ev.Stack().Frames() {
						if len(fs) < 4 && !strings.HasPrefix(fr.Func, "runtime.") && !strings.HasPrefix(fr.Func, "internal/sync") {
							fs = append(fs, short(fr.Func))
						}
					}
					mutexBlocks[strings.Join(fs, " < ")]++
				}
			}
			if from == trace.GoWaiting && to == trace.GoRunnable {
				waker := "the runtime"
				if w := ev.Goroutine(); w != trace.NoGoroutine {
					waker = get(w).name
				}
				wakes[[2]string{waker, g.name}]++
			}
		case trace.EventRangeBegin, trace.EventRangeActive:
			if window0 != 0 {
				rg := ev.Range()
				open[rg.Name+"@"+rg.Scope.String()] = t
				rangeN[rg.Name]++
			}
		case trace.EventRangeEnd:
			rg := ev.Range()
			k := rg.Name + "@" + rg.Scope.String()
			if t0, ok := open[k]; ok {
				ranges[rg.Name] += t - t0
				delete(open, k)
			}
		}
	}
	if window0 == 0 {
		fmt.Fprintf(os.Stderr, "tracestat: %s: no goroutine of engine/ or mock/ in the trace, so no replay to summarise: trace a replay, e.g. go test -run '^$' -bench 'Pipeline/^msgs=100000$/^events=none$' -benchtime 5x -trace T ./engine/\n", os.Args[1])
		os.Exit(2)
	}
	win := last - window0
	byName := map[string]*gstat{}
	var total trace.Time
	for _, g := range gs {
		a := byName[g.name]
		if a == nil {
			a = &gstat{name: g.name, blocks: map[string]int{}}
			byName[g.name] = a
		}
		a.run += g.run
		a.runq += g.runq
		a.starts += g.starts
		for k, v := range g.blocks {
			a.blocks[k] += v
		}
		total += g.run
	}
	rows := make([]*gstat, 0, len(byName))
	for _, a := range byName {
		rows = append(rows, a)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].run > rows[j].run })
	fmt.Printf("window %.3f s; goroutines ran %.3f s (%.2f processors busy on average)\n", sec(win), sec(total), float64(total)/float64(win))
	fmt.Println("goroutine\tran (s)\tshare of window\trunnable, waiting for a processor (s)\truns\tblocks")
	for _, a := range rows {
		if a.run < win/200 {
			continue
		}
		fmt.Printf("%s\t%.3f\t%.1f%%\t%.3f\t%d\t%v\n", a.name, sec(a.run), 100*float64(a.run)/float64(win), sec(a.runq), a.starts, a.blocks)
	}
	type count struct {
		k string
		n int
	}
	sorted := func(m map[string]int) []count {
		var cs []count
		for k, n := range m {
			cs = append(cs, count{k, n})
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].n > cs[j].n })
		return cs
	}
	wk := map[string]int{}
	all := 0
	for k, n := range wakes {
		wk[k[0]+" -> "+k[1]] += n
		all += n
	}
	fmt.Printf("wake-ups (hand-offs) %d in all:\n", all)
	for i, c := range sorted(wk) {
		if i == 20 {
			break
		}
		fmt.Printf("  %7d  %s\n", c.n, c.k)
	}
	fmt.Println("blocks on a mutex (sync), where:")
	for i, c := range sorted(mutexBlocks) {
		if i == 10 {
			break
		}
		fmt.Printf("  %7d  %s\n", c.n, c.k)
	}
	fmt.Println("runtime phases:")
	names := make([]string, 0, len(ranges))
	for k := range ranges {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Printf("  %-40s %6d  %.3f s\n", k, rangeN[k], sec(ranges[k]))
	}
}

// replayName reports whether a goroutine so named is the replay's: of
// engine/ or mock/, or a stage of theirs (a goroutine there before the
// trace began is named by its stage at once).
func replayName(name string) bool {
	name = strings.TrimPrefix(name, "stage ")
	return strings.HasPrefix(name, "engine") || strings.HasPrefix(name, "mock.")
}

// nameByStack names g, a goroutine there before the trace began, by the
// outermost function of stk (its goroutine's own stack): the function it
// was started with. It reports false when stk has none.
func nameByStack(g *gstat, stk trace.Stack) bool {
	outer := ""
	for fr := range stk.Frames() {
		if fr.Func != "runtime.goexit" {
			outer = fr.Func
		}
	}
	if outer == "" {
		return false
	}
	g.name, g.existing = short(outer), false
	return true
}

// closure matches a closure's name (Run.func2).
var closure = regexp.MustCompile(`\.func\d+$`)

func sec(t trace.Time) float64 { return float64(t) / 1e9 }

func short(s string) string { return strings.TrimPrefix(s, "github.com/replayctl/replayctl/") }
