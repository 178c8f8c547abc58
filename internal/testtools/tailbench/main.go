// Command tailbench measures a paced schedule where the requests arrive:
// it writes the inputs of the three clients compared (a replayctl tape, a
// GoReplay file, a vegeta target) and reads the arrival log of the slow
// test server (slow -arrivals FILE) into the deviation of each call's
// arrival from the ideal schedule. scripts/bench-tail.sh runs it.
//
//	tailbench tape  -calls 200 -gap 2ms -o t.jsonl
//	tailbench gor   -calls 200 -gap 2ms -host 127.0.0.1:18941 -o t.gor
//	tailbench body  -o body.json
//	tailbench stats -gap 200us [-rx] arrivals.log...
//	tailbench split -report r.json [-rx] arrivals.log
//	tailbench pong  -addr 127.0.0.1:18942 -arrivals floor.log   (floor.go: the machine's floor)
//	tailbench ping  -addr 127.0.0.1:18942 -calls 200 -gap 200us -report floor.json
//	tailbench warm  -addr 127.0.0.1:18941 -http   (warm.go: the server's warm-up, skipped by stats and split)
//	tailbench hpong -addr 127.0.0.1:18941 -arrivals hpong.log   (hpong.go: a lean server the clients meet instead of the slow one)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replayctl/replayctl/internal/testtape/calls"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "tape":
		err = tapeCmd(args)
	case "gor":
		err = gorCmd(args)
	case "body":
		err = bodyCmd(args)
	case "stats":
		err = statsCmd(args, os.Stdout)
	case "split":
		err = splitCmd(args, os.Stdout)
	case "pong":
		err = pongCmd(args)
	case "ping":
		err = pingCmd(args)
	case "warm":
		err = warmCmd(args)
	case "hpong":
		err = hpongCmd(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tailbench:", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tailbench tape|gor|body|stats|split|ping|pong|warm|hpong [flags] (see the package doc)")
	os.Exit(2)
}

// call is the body of the i-th tools/call, as every client sends it; the
// slow server answers it with its text.
func call(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%d"}}}`, i, i)
}

// start is when the first call was recorded: after the handshake.
const start = 10 * time.Millisecond

// tapeCmd writes one session recorded against the slow server: the
// handshake, then calls tools/call gap apart, each answered 0.1ms later.
func tapeCmd(args []string) error {
	fs := flag.NewFlagSet("tape", flag.ExitOnError)
	n := fs.Int("calls", 200, "tools/call requests")
	gap := fs.Duration("gap", 2*time.Millisecond, "recorded time between two calls")
	out := fs.String("o", "", "the tape to write")
	_ = fs.Parse(args)
	if *out == "" || *n < 1 || *gap <= 0 {
		return fmt.Errorf("tape: want -o FILE, -calls >= 1, -gap > 0")
	}
	return calls.Tape{
		N: *n, Gap: *gap, Start: start, Transport: "http", Server: "slow",
		Call: call, Answer: strconv.Itoa,
	}.Write(*out)
}

// gorCmd writes the same calls as GoReplay's input file: each request
// with the time it was recorded at, gap apart.
func gorCmd(args []string) error {
	fs := flag.NewFlagSet("gor", flag.ExitOnError)
	calls := fs.Int("calls", 200, "tools/call requests")
	gap := fs.Duration("gap", 2*time.Millisecond, "recorded time between two calls")
	host := fs.String("host", "127.0.0.1:18941", "the Host header")
	out := fs.String("o", "", "the file to write")
	_ = fs.Parse(args)
	if *out == "" || *calls < 1 || *gap <= 0 {
		return fmt.Errorf("gor: want -o FILE, -calls >= 1, -gap > 0")
	}
	var b strings.Builder
	t0 := time.Now().Add(-time.Hour).UnixNano()
	for i := 1; i <= *calls; i++ {
		body := call(i)
		// GoReplay's payload: a header line (type 1 = request, an id,
		// the time in ns, the latency), the raw request, the separator.
		fmt.Fprintf(&b, "1 %024x %d 0\n", i, t0+int64(time.Duration(i-1)**gap))
		fmt.Fprintf(&b, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", *host, len(body), body)
		b.WriteString("\n\U0001F435\U0001F648\U0001F649\n")
	}
	return writeFile(*out, b.String())
}

// bodyCmd writes the body of one call, for vegeta's target file.
func bodyCmd(args []string) error {
	fs := flag.NewFlagSet("body", flag.ExitOnError)
	out := fs.String("o", "", "the file to write")
	_ = fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("body: want -o FILE")
	}
	return writeFile(*out, call(1))
}

func writeFile(path, s string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// statsCmd prints, for each arrival log, the deviation of each tools/call's
// arrival from the ideal schedule (call i at anchor + i×gap, the anchor the
// median of arrival_i − i×gap, so that neither the first call nor a late
// start sets it), and the deviation of each gap between two arrivals
// from gap.
func statsCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("stats", flag.ExitOnError)
	gap := fs.Duration("gap", 200*time.Microsecond, "the ideal time between two arrivals")
	calls := fs.Int("calls", 0, "count the first `N` calls only (vegeta sends by duration, not count); 0: all")
	late := fs.Duration("late", 200*time.Microsecond, "count the calls further than this from the schedule")
	startN := fs.Int("start", 6, "the first `N` calls are the schedule's start in the late count")
	rx := fs.Bool("rx", false, "by the kernel's receive time of each call (the logs' rx= field), not the handler's")
	_ = fs.Parse(args)
	if fs.NArg() == 0 {
		return fmt.Errorf("stats: want one or more arrival logs")
	}
	for _, path := range fs.Args() {
		at, err := arrivalsBy(path, *rx)
		if err != nil {
			return err
		}
		if *calls > 0 && len(at) > *calls {
			at = at[:*calls]
		}
		if len(at) < 2 {
			return fmt.Errorf("stats: %s: %d tools/call arrivals, want at least 2", path, len(at))
		}
		dev, gaps := deviations(at, *gap)
		atStart, later := lateCalls(at, *gap, *late, *startN)
		fmt.Fprintf(w, "%s: %d calls; arrival vs schedule p50 %.3f p99 %.3f max %.3f ms; gaps p50 %.3f p99 %.3f max %.3f ms; span %.2f ms (ideal %.2f); late > %s: %d at the start (calls 0-%d), %d later\n",
			path, len(at), q(dev, 0.5), q(dev, 0.99), q(dev, 1), q(gaps, 0.5), q(gaps, 0.99), q(gaps, 1),
			ms(at[len(at)-1]-at[0]), ms(time.Duration(len(at)-1)**gap), *late, atStart, *startN-1, later)
	}
	return nil
}

// splitCmd splits each tools/call's round trip in a replayctl run into
// its way up (sent, by the report's timeline, to read at the server, by
// its arrival log) and its way back (read at the server to answered at
// the client), joined by order, and prints their medians and the calls
// where either took longer than -over: whether a late stretch was the
// client's send, the way to the server or the way back.
func splitCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("split", flag.ExitOnError)
	path := fs.String("report", "", "the run's JSON report (replayctl run --report FILE)")
	over := fs.Duration("over", 300*time.Microsecond, "list the calls whose way up or back took longer")
	rx := fs.Bool("rx", false, "split at the kernel's receive time of each call (the log's rx= field), not the handler's")
	gap := fs.Duration("gap", 0, "with the schedule's `gap` (e.g. 200us): also count the calls further than -late from it (anchored as stats does) and how many of them were held")
	lateBy := fs.Duration("late", 200*time.Microsecond, "with -gap: what counts as late")
	_ = fs.Parse(args)
	if *path == "" || fs.NArg() != 1 {
		return fmt.Errorf("split: want -report FILE and one arrival log")
	}
	b, err := os.ReadFile(*path)
	if err != nil {
		return err
	}
	var r struct {
		Summary struct {
			StartedAt time.Time `json:"started_at"`
		} `json:"summary"`
		Timeline []struct {
			Method     string   `json:"method"`
			DueMS      float64  `json:"due_ms"`
			SentMS     float64  `json:"sent_ms"`
			AnsweredMS *float64 `json:"answered_ms"`
		} `json:"timeline"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("split: %s: %w", *path, err)
	}
	at, err := arrivalsBy(fs.Arg(0), *rx)
	if err != nil {
		return err
	}
	start := time.Duration(r.Summary.StartedAt.UnixNano())
	fromMS := func(v float64) time.Duration { return start + time.Duration(v*float64(time.Millisecond)) }
	var ups, backs []time.Duration
	var waits []time.Duration // each joined call's sent - due
	var late []string
	var turn turnarounds
	first := "" // call 0's legs: a cold first round trip holds the calls after it
	i := 0
	prev := -1 // the timeline's previous tools/call
	for k, t := range r.Timeline {
		if t.Method != "tools/call" || i >= len(at) {
			continue
		}
		if prev >= 0 {
			if a := r.Timeline[prev].AnsweredMS; a != nil && *a > t.DueMS && t.SentMS >= *a {
				turn.add(i, fromMS(t.SentMS)-fromMS(*a))
			}
		}
		prev = k
		up := at[i] - fromMS(t.SentMS)
		back := time.Duration(-1)
		if t.AnsweredMS != nil {
			back = fromMS(*t.AnsweredMS) - at[i]
			backs = append(backs, back)
		}
		ups = append(ups, up)
		if i == 0 {
			first = fmt.Sprintf("call 0 up %.3f back %.3f ms", ms(up), ms(back))
			if back < 0 {
				first = fmt.Sprintf("call 0 up %.3f ms, no answer", ms(up))
			}
		}
		if up > *over || back > *over {
			late = append(late, fmt.Sprintf("%d (held %.3f, up %.3f, back %.3f)", i, ms(fromMS(t.SentMS)-fromMS(t.DueMS)), ms(up), ms(back)))
		}
		waits = append(waits, fromMS(t.SentMS)-fromMS(t.DueMS))
		i++
	}
	if len(ups) == 0 || len(backs) == 0 {
		return fmt.Errorf("split: no tools/call to join")
	}
	slices.Sort(ups)
	slices.Sort(backs)
	fmt.Fprintf(w, "%d calls; way up p50 %.3f ms, way back p50 %.3f ms; %s; %d over %s", len(ups), q(ups, 0.5), q(backs, 0.5), first, len(late), *over)
	if len(late) > 0 {
		fmt.Fprintf(w, ", first: %s", strings.Join(late[:min(len(late), 8)], "; "))
	}
	fmt.Fprintln(w)
	if len(turn.all) > 0 {
		fmt.Fprintln(w, turn.String())
	}
	if *gap > 0 {
		fmt.Fprintln(w, heldLate(at[:len(waits)], waits, *gap, *lateBy))
	}
	return nil
}

// heldLate counts the calls further than late from the schedule of gap
// (anchored as deviations is) and, of them, those the client sent more
// than a quarter of late after their due time: held behind the answer
// before them (causal order) or late by the client's own lag; the rest
// were sent on time and late on their way. at and waits (sent - due)
// are by call.
func heldLate(at, waits []time.Duration, gap, late time.Duration) string {
	offs := make([]time.Duration, len(at))
	for i, a := range at {
		offs[i] = a - time.Duration(i)*gap
	}
	anchor := slices.Sorted(slices.Values(offs))[len(offs)/2]
	n, sentLate := 0, 0
	for i, o := range offs {
		if (o - anchor).Abs() <= late {
			continue
		}
		n++
		if waits[i] > late/4 {
			sentLate++
		}
	}
	return fmt.Sprintf("%d calls more than %s from the schedule; %d of them sent more than %s after due (held by an answer, or the client's lag), %d sent on time", n, late, sentLate, late/4, n-sentLate)
}

// turnarounds are the replayer's share of a run held by its answers: for
// each call sent after its due time because the answer before it came
// after that time (causal order, as the tape's calls are), how long the
// replayer took from that answer to the call. Its sum beside the last
// call's lateness says how much of a held run was the replayer's and how
// much the target's round trips.
type turnarounds struct {
	all   []time.Duration
	sum   time.Duration
	max   time.Duration
	worst int // the call whose turnaround is max
}

func (t *turnarounds) add(call int, d time.Duration) {
	if len(t.all) == 0 || d > t.max {
		t.max, t.worst = d, call
	}
	t.all = append(t.all, d)
	t.sum += d
}

func (t *turnarounds) String() string {
	s := slices.Sorted(slices.Values(t.all))
	return fmt.Sprintf("%d calls held by the answer before them; the replayer's turnaround (answer → call) p50 %.3f ms, max %.3f ms (call %d), sum %.3f ms",
		len(s), q(s, 0.5), ms(t.max), t.worst, ms(t.sum))
}

// lateCalls counts the arrivals further than late from the ideal schedule
// (anchored as deviations does): among the first start calls (the
// schedule's start: a cold first round trip holds the calls after it)
// and after them.
func lateCalls(at []time.Duration, gap, late time.Duration, start int) (atStart, later int) {
	offs := make([]time.Duration, len(at))
	for i, a := range at {
		offs[i] = a - time.Duration(i)*gap
	}
	anchor := slices.Sorted(slices.Values(offs))[len(offs)/2]
	for i, o := range offs {
		if (o - anchor).Abs() <= late {
			continue
		}
		if i < start {
			atStart++
		} else {
			later++
		}
	}
	return atStart, later
}

// deviations returns how far each arrival is from the ideal schedule,
// and how far each gap between two arrivals is from gap.
func deviations(at []time.Duration, gap time.Duration) (dev, gaps []time.Duration) {
	offs := make([]time.Duration, len(at))
	for i, a := range at {
		offs[i] = a - time.Duration(i)*gap
	}
	sorted := slices.Sorted(slices.Values(offs))
	anchor := sorted[len(sorted)/2]
	for i, o := range offs {
		dev = append(dev, (o - anchor).Abs())
		if i > 0 {
			gaps = append(gaps, (at[i] - at[i-1] - gap).Abs())
		}
	}
	slices.Sort(dev)
	slices.Sort(gaps)
	return dev, gaps
}

// q is the p-quantile of sorted (nearest rank), in milliseconds.
func q(sorted []time.Duration, p float64) float64 {
	return ms(sorted[max(int(math.Ceil(p*float64(len(sorted))))-1, 0)])
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// arrivals reads the slow server's arrival log: when each tools/call came
// in, in order, but the warm-up's (an id isWarm), as the server's handler
// read it (the first field).
func arrivals(path string) ([]time.Duration, error) { return arrivalsBy(path, false) }

// arrivalsBy is arrivals by the handler's time or, with rx, by the
// kernel's receive time (the "rx=" field of a server run with -rx, and
// pong's): when the request reached the server, before the server's own
// wake-up and scheduling (rxstamp).
func arrivalsBy(path string, rx bool) ([]time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var at []time.Duration
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || fields[1] != "tools/call" || len(fields) > 2 && isWarm(fields[2]) {
			continue
		}
		field := fields[0]
		if rx {
			last := fields[len(fields)-1]
			if len(fields) < 4 || !strings.HasPrefix(last, "rx=") {
				return nil, fmt.Errorf("%s line %d: %q: no rx= field (the kernel's receive time): run the slow server with -rx, or drop -rx here", path, n, sc.Text())
			}
			field = last[len("rx="):]
		}
		ns, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %q: not an arrival line: %w", path, n, sc.Text(), err)
		}
		at = append(at, time.Duration(ns))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.Sort(at)
	return at, nil
}
