package transport

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// getServer is a Streamable HTTP server in process whose standalone GET
// stream, like the TypeScript SDK's, gets what the server sends as it
// handles notifications/initialized only if the stream is registered by
// then (else it is dropped). It answers initialize after initDelay; it
// takes getDelay to get to a GET (a loaded server), then registers the
// stream and, unless holdHeaders, sends its headers at once (a server
// that holds them back sends them with its first event).
type getServer struct {
	initDelay, getDelay time.Duration
	holdHeaders         bool

	mu          sync.Mutex  // guards the fields below
	stream      chan string // the registered GET stream's events; nil: none
	initialized time.Time   // when notifications/initialized arrived
}

func (s *getServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && strings.Contains(string(body), `"initialize"`):
		time.Sleep(s.initDelay)
		w.Header().Set(HeaderSessionID, "sess-1")
		writeJSON(w, http.StatusOK, initAnswer)
	case r.Method == http.MethodPost && strings.Contains(string(body), `"notifications/initialized"`):
		s.mu.Lock()
		s.initialized = time.Now()
		if s.stream != nil {
			s.stream <- `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
		}
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodGet:
		time.Sleep(s.getDelay)
		ch := make(chan string, 1)
		s.mu.Lock()
		s.stream = ch
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if !s.holdHeaders {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		}
		select {
		case msg := <-ch:
			_, _ = io.WriteString(w, "data: "+msg+"\n\n")
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
		<-r.Context().Done()
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	}
}

func (s *getServer) initializedAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized
}

// TestHTTPInitializedWaitsForTheGET: notifications/initialized is posted
// once the server has answered the standalone GET, so that what the
// server sends as it handles initialized reaches the stream. How long it
// waits for a GET unanswered grows with the time the server took to
// answer initialize (a loaded server answers its GET late too), is 2s at
// least (a server that holds back the GET's headers, answering
// initialize at once, delays the session by that much) and never more
// than half the time the send has. On synctest's clock: the waits are
// exact.
func TestHTTPInitializedWaitsForTheGET(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  *getServer
		// sendFor is the time the initialized send has (its ctx's
		// deadline); 0: a minute.
		sendFor time.Duration
		// wait is how long after the send began initialized reaches
		// the server.
		wait time.Duration
		// note: whether the server's notification reaches the stream.
		note bool
	}{
		// As server-everything under load in TestRecordE2EHTTP/go-sdk/
		// everything: initialize answered in 0.7s, GETs past 2s, and
		// the tools/list_changed sent as it handled initialized lost.
		{name: "a loaded server", srv: &getServer{initDelay: 700 * time.Millisecond, getDelay: 3 * time.Second}, wait: 3 * time.Second, note: true},
		{name: "a server at ease", srv: &getServer{getDelay: 10 * time.Millisecond}, wait: 10 * time.Millisecond, note: true},
		{name: "headers held back", srv: &getServer{holdHeaders: true}, wait: getWait, note: true},
		{name: "headers held back, a slow initialize", srv: &getServer{initDelay: time.Second, holdHeaders: true}, wait: getWaitPerInit * time.Second, note: true},
		{name: "half the send's time at most", srv: &getServer{initDelay: time.Second, getDelay: time.Minute}, sendFor: 6 * time.Second, wait: 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := tc.srv
				c := dialIn(t, Handler{Handler: srv, Logger: testLogger(t)}, "s1")
				send(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
				await(t, c, 1)
				sendFor := tc.sendFor
				if sendFor == 0 {
					sendFor = time.Minute
				}
				ctx, cancel := context.WithTimeout(t.Context(), sendFor)
				defer cancel()
				start := time.Now()
				if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
					t.Fatalf("Send initialized: %v", err)
				}
				if got := srv.initializedAt().Sub(start); got != tc.wait {
					t.Errorf("initialized reached the server %s after the send began, want %s", got, tc.wait)
				}
				got := false
				select {
				case in := <-c.Incoming():
					got = strings.Contains(string(in.Msg), "tools/list_changed")
				case <-time.After(time.Hour): // fake time: passes at once when nothing else can happen
				}
				if got != tc.note {
					t.Errorf("the notification sent as the server handled initialized arrived: %v, want %v", got, tc.note)
				}
			})
		})
	}
}
