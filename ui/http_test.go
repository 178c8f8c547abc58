package ui

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/replayctl/replayctl/engine/event"
	"github.com/replayctl/replayctl/replay"
)

// get sends a GET to rawURL with the Host host ("": the URL's), Origin
// origin ("": none) and the header Authorization auth ("": none).
func get(t *testing.T, rawURL, host, origin, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// The page, the feed and a mounted handler need the token (in the query,
// or as a bearer token), and refuse a foreign Host or Origin with 403.
func TestRefusesWithoutTokenOrFromElsewhere(t *testing.T) {
	s := New(WithToken("secret-token"))
	if err := s.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "replayctl_requests_total 7\n")
	})); err != nil {
		t.Fatal(err)
	}
	page := serve(t, s)
	u, _ := url.Parse(page)
	base := "http://" + u.Host
	for _, c := range []struct {
		name, url, host, origin, auth string
		want                          int
		body                          string
	}{
		{"page with the token", base + "/?token=secret-token", "", "", "", 200, "<canvas id=\"tl\""},
		{"page without a token", base + "/", "", "", "", 401, "needs its token"},
		{"page with a wrong token", base + "/?token=secret-tokeN", "", "", "", 401, "needs its token"},
		{"feed without a token", base + "/events", "", "", "", 401, ""},
		{"message without a token", base + "/api/message?session=s1&seq=3", "", "", "", 401, ""},
		{"metrics with a bearer token", base + "/metrics", "", "", "Bearer secret-token", 200, "replayctl_requests_total 7"},
		{"metrics with the token in the query", base + "/metrics?token=secret-token", "", "", "", 200, "replayctl_requests_total 7"},
		{"metrics without a token", base + "/metrics", "", "", "", 401, ""},
		{"metrics with a wrong bearer token", base + "/metrics", "", "", "Bearer nope", 401, ""},
		{"a rebound name (Host)", base + "/?token=secret-token", "evil.example", "", "", 403, "Host"},
		{"a foreign Origin", base + "/?token=secret-token", "", "http://evil.example", "", 403, "Origin"},
		{"a foreign Origin on metrics", base + "/metrics", "", "http://evil.example", "Bearer secret-token", 403, "Origin"},
		{"a loopback Origin", base + "/?token=secret-token", "", "http://127.0.0.1:9", "", 200, ""},
		{"localhost as Host", base + "/?token=secret-token", "localhost:1234", "", "", 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := get(t, c.url, c.host, c.origin, c.auth)
			if code != c.want || !strings.Contains(body, c.body) {
				t.Errorf("got %d %.200q, want %d with %q", code, body, c.want, c.body)
			}
		})
	}
	if err := s.Handle("/late", http.NotFoundHandler()); err == nil {
		t.Errorf("Handle after Serve: got nil, want an error")
	}
}

// sse reads the feed at rawURL (Last-Event-ID last, "" none) until it has
// seen the hello and a frame whose events include a run's end, and
// returns the ids of the frames and the hello's data.
func sse(t *testing.T, rawURL, last string) (ids []string, hello string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	event := ""
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "event: "):
			event = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "id: "):
			ids = append(ids, strings.TrimPrefix(l, "id: "))
		case strings.HasPrefix(l, "data: ") && event == "hello":
			hello = strings.TrimPrefix(l, "data: ")
		case strings.HasPrefix(l, "data: ") && strings.Contains(l, `["X",`):
			return ids, hello
		case l == "":
			event = ""
		}
	}
	t.Fatalf("the feed ended before the run's end: %v (ids %v)", sc.Err(), ids)
	return nil, ""
}

// A viewer that comes after the run sees it from its start; one that
// reconnects with Last-Event-ID is sent the frames after it only; past the
// journal's bound the oldest frames are dropped and a new viewer is told
// how many events it will not see.
//
// The journal seals a frame of each event as it comes (framePerEvent),
// not on the server's clock: how many events a frame of the clock's holds
// depends on how often the stream and the ticker got the processor, and a
// realtime run of 400 ms under load left 4 frames, the last one over the
// bound of 150 events alone ("a late viewer got frames [4]").
// TestFrameClock covers the server's clock, on a fake one.
func TestFeedCatchesUpAndReconnects(t *testing.T) {
	for _, bound := range []int{DefaultJournal, 150} {
		s := New(WithJournal(bound), WithFrame(time.Hour)) // no frame sealed by the clock
		page := serve(t, s)
		path := tempTape(t, "tape.jsonl", 5, 20, 20000, nil) // 5 sessions of 20 calls: over 200 events
		rep, err := replay.Run(t.Context(), path, replay.Events(framePerEvent(s)), replay.OnResult(s.OnResult), replay.SpeedText("fast"))
		if err != nil || !rep.Passed() {
			t.Fatalf("Run: %v, passed %v", err, rep != nil && rep.Passed())
		}
		s.Finish(rep)
		feed := strings.Replace(page, "/?token=", "/events?token=", 1)
		ids, hello := sse(t, feed, "")
		if len(ids) < 3 {
			t.Fatalf("bound %d: a late viewer got frames %v, want several", bound, ids)
		}
		if bound == DefaultJournal {
			if ids[0] != "1" || !strings.Contains(hello, `"lost":0`) {
				t.Errorf("a late viewer's first frame is %s, hello %s: want frame 1 and nothing lost", ids[0], hello)
			}
		} else if ids[0] == "1" || strings.Contains(hello, `"lost":0`) {
			t.Errorf("bound 150 events: first frame %s, hello %.100s: want the oldest frames dropped and counted", ids[0], hello)
		}
		mid := ids[len(ids)/2]
		again, _ := sse(t, feed, mid)
		want := ids[len(ids)/2+1:]
		if strings.Join(again, ",") != strings.Join(want, ",") {
			t.Errorf("bound %d: reconnecting after frame %s got frames %v, want %v", bound, mid, again, want)
		}
	}
}

// framePerEvent is s's event consumer sealing a frame of each event it
// adds, and waking the viewers, as the server's clock does for what came
// since its last tick.
func framePerEvent(s *Server) event.Consumer {
	c := s.Consumer()
	handle := c.Handle
	c.Handle = func(batch []event.Event) error {
		for i := range batch {
			if err := handle(batch[i : i+1]); err != nil {
				return err
			}
			if s.j.seal() {
				s.changed()
			}
		}
		return nil
	}
	return c
}
