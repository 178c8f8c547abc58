package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/replay"
)

// The frame clock, as a replay's --ui has it (Options, Serve): while the
// run goes on, the events are sent to a viewer in frames the server's
// clock seals, one a tick (WithFrame), and Finish seals the rest. The
// viewer gets every event the replay emitted once, in order, as a
// lossless consumer of the same stream got them.
//
// It runs in a synctest bubble, the server on in-memory connections
// (pipeListener): the clock moves only when every goroutine is blocked,
// so a frame reaches the viewer at the very instant of the tick that
// sealed it, and the checks are of counts and of instants on that
// clock, whatever the machine's load. The frame (70 ms) is no multiple
// of the stream's FlushEvery (50 ms), so that a tick and a flush of the
// stream seldom fall on the same instant (they may, in either order).
func TestFrameClock(t *testing.T) {
	const frame = 70 * time.Millisecond
	path := tempTape(t, "tape.jsonl", 5, 8, 40_000, nil) // 5 sessions of 8 calls 40 ms apart: 320 ms
	synctest.Test(t, func(t *testing.T) {
		s := New(WithToken("tok"), WithFrame(frame))
		ln := newPipeListener()
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		start := time.Now() // the bubble's clock stands still until Serve's ticker is made
		go func() { served <- s.Serve(ctx, ln) }()

		tr := &http.Transport{DialContext: ln.dial}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/events?token=tok", nil)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /events: %s", resp.Status)
		}
		feed := make(chan viewed, 1)
		go func() { feed <- view(resp) }()

		var ref []event.Event // the same stream, read losslessly
		reference := event.Consumer{Name: "reference", Types: feedTypes, Handle: func(batch []event.Event) error {
			ref = append(ref, batch...)
			return nil
		}}
		rep, err := replay.Run(ctx, path, append(s.Options(), replay.Events(reference), replay.SpeedText("realtime"))...)
		if err != nil || !rep.Passed() {
			t.Fatalf("Run: %v, passed %v", err, rep != nil && rep.Passed())
		}
		ended := time.Now()
		s.Finish(rep)
		got := <-feed
		resp.Body.Close()
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		tr.CloseIdleConnections()
		if got.err != "" {
			t.Fatalf("the feed: %s (frames %v)", got.err, got.ids)
		}

		// Every event once, in order: the frames' events are those of
		// one frame of the reference's events.
		want := newJournal(DefaultJournal)
		want.add(ref)
		want.seal()
		var all struct {
			Names []string          `json:"names"`
			Ev    []json.RawMessage `json:"ev"`
		}
		if err := json.Unmarshal(want.frames[0].data, &all); err != nil {
			t.Fatal(err)
		}
		if len(ref) < 5*8*2 {
			t.Fatalf("the reference got %d events, want a send and a verdict of each call at least", len(ref))
		}
		if g, w := strings.Join(got.names, ","), strings.Join(all.Names, ","); g != w {
			t.Errorf("the feed's name table %s, want %s", g, w)
		}
		if len(got.events) != len(all.Ev) {
			t.Errorf("the feed has %d events, want the %d emitted", len(got.events), len(all.Ev))
		}
		for i := range min(len(got.events), len(all.Ev)) {
			if string(got.events[i]) != string(all.Ev[i]) {
				t.Errorf("the feed's event %d is %s, want %s (every event once, in order)", i, got.events[i], all.Ev[i])
				break
			}
		}

		// Batched by the clock: while the run went on, each frame
		// reached the viewer at a tick of its own; then Finish sealed
		// the rest, at most one frame, at once.
		ticks := int((ended.Sub(start) - 1) / frame) // before the run's end
		offsets := make([]time.Duration, len(got.at))
		for i, at := range got.at {
			offsets[i] = at.Sub(start)
		}
		clocked, last, seen := 0, 0, map[time.Duration]bool{}
		for i, at := range got.at {
			d := at.Sub(start)
			switch {
			case at.Before(ended):
				if d <= 0 || d%frame != 0 || seen[d] {
					t.Errorf("frame %s reached the viewer at +%s, want at a tick of its own (every %s)", got.ids[i], d, frame)
				}
				seen[d] = true
				clocked++
			case at.Equal(ended): // Finish's, and a tick's at that instant
				last++
				if last > 1 && (d%frame != 0 || last > 2) {
					t.Errorf("%d frames reached the viewer at the run's end (+%s), want Finish's only", last, d)
				}
			default:
				t.Errorf("frame %s reached the viewer at +%s, after the run (+%s): want the clock's frames before it and Finish's last", got.ids[i], d, ended.Sub(start))
			}
		}
		// The tape's messages are never more than 40 ms apart, the
		// stream hands them on every 50 ms at the latest: every tick of
		// the run found events to seal.
		if clocked != ticks {
			t.Errorf("%d frames sealed by the clock in a run of %s, want one at each of its %d ticks (every %s): frames %v at +%v",
				clocked, ended.Sub(start), ticks, frame, got.ids, offsets)
		}
		for i, id := range got.ids {
			if id != jsonString(i+1) {
				t.Errorf("frame ids %v, want 1, 2, 3, …", got.ids)
				break
			}
		}
		if len(got.ids) > len(all.Ev) {
			t.Errorf("%d frames of %d events, want no more frames than events", len(got.ids), len(all.Ev))
		}
	})
}

// viewed is what a viewer of the feed read, until the run's verdict:
// each frame's id and the instant it came, the name table and the
// events of all the frames in order; err says what was wrong with it.
type viewed struct {
	ids    []string
	at     []time.Time
	names  []string
	events []json.RawMessage
	err    string
}

// view reads the feed of resp until the run's verdict ("result").
func view(resp *http.Response) (v viewed) {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	event := ""
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "event: "):
			event = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "id: "):
			v.ids = append(v.ids, strings.TrimPrefix(l, "id: "))
			v.at = append(v.at, time.Now())
		case strings.HasPrefix(l, "data: ") && event == "result":
			return v
		case strings.HasPrefix(l, "data: ") && event == "":
			var f struct {
				Base  int               `json:"base"`
				Names []string          `json:"names"`
				Ev    []json.RawMessage `json:"ev"`
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &f); err != nil {
				v.err = "frame " + l + ": " + err.Error()
				return v
			}
			if f.Base != len(v.names) {
				v.err = "a frame's names start at " + jsonString(f.Base) + ", want " + jsonString(len(v.names))
				return v
			}
			if len(f.Ev) == 0 {
				v.err = "an empty frame: " + l
				return v
			}
			v.names = append(v.names, f.Names...)
			v.events = append(v.events, f.Ev...)
		case l == "":
			event = ""
		}
	}
	v.err = "the feed ended before the run's verdict"
	if sc.Err() != nil {
		v.err += ": " + sc.Err().Error()
	}
	return v
}

// pipeListener is a listener of in-memory connections (net.Pipe) for a
// server in a synctest bubble, where a real socket's wait would not let
// the bubble's clock move; dial makes a connection to it.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
