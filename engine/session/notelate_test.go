package session

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/transport"
)

const rootsNote = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"Roots updated"}}`

// lateNoting is a target that answers tools/list and then asks roots/list
// (as server-everything does on a timer, after the client's last
// request), and sends its log notification a moment (after) once it has
// the client's answer, from a goroutine of its own, as a server that
// handles the answer and then notifies on its stream; never, when after
// is 0. wg counts its goroutines.
func lateNoting(c *scripted, after time.Duration, wg *sync.WaitGroup) func(msg []byte) [][]byte {
	return func(msg []byte) [][]byte {
		rpc, _ := jsonrpc.Parse(msg)
		switch {
		case rpc.Method == "tools/list":
			return [][]byte{[]byte(listResp), []byte(`{"jsonrpc":"2.0","id":"live-1","method":"roots/list"}`)}
		case rpc.Kind == jsonrpc.KindResponse && string(rpc.ID) == `"live-1"` && after > 0:
			wg.Go(func() {
				time.Sleep(after)
				c.mu.Lock()
				defer c.mu.Unlock()
				if !c.closed {
					c.in <- transport.Incoming{Msg: []byte(rootsNote), At: time.Now()}
				}
			})
			return nil
		case rpc.Kind == jsonrpc.KindRequest:
			return echo(msg)
		}
		return nil
	}
}

// TestActorNotificationAfterServerAnswer: a notification the recorded
// server sent after the client's answer to its request, the session's
// last message, is compared with the live one when it comes, a moment
// after the answer is sent, not reported as never come; one that never
// comes is reported so after the replay's timeout.
func TestActorNotificationAfterServerAnswer(t *testing.T) {
	recorded := []string{"c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "s2c", rootsAsk, "c2s", rootsAnswer, "s2c", rootsNote}
	for _, tc := range []struct {
		name  string
		after time.Duration // when the live notification comes after the answer (0: never)
		came  bool
	}{
		{"late", 50 * time.Millisecond, true},
		{"never", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := &scripted{in: make(chan transport.Incoming, 8)}
				var wg sync.WaitGroup
				defer wg.Wait()
				c.answer = lateNoting(c, tc.after, &wg)
				e := env(t, &dialer{c: c}, fast)
				e.ValidateNotifications = true
				start := time.Now()
				s, err := replay(t, e, msgs(t, recorded...))
				if err != nil {
					t.Fatal(err)
				}
				if o := s.bySeq()[5]; o == nil || o.Sent.IsZero() {
					t.Fatalf("the client's answer to roots/list: %+v, want sent", o)
				}
				o := s.bySeq()[6]
				if o == nil || !o.Note {
					t.Fatalf("the recorded notification: %+v, want compared", o)
				}
				if tc.came && (o.Actual == nil || o.Err != nil) {
					t.Errorf("the recorded notification: actual %v, err %v; want paired with the live one that came %s after the answer", o.Actual, o.Err, tc.after)
				}
				if !tc.came {
					if o.Err == nil || !strings.Contains(o.Err.Error(), "never came") {
						t.Errorf("the recorded notification: err %v, want: never came", o.Err)
					}
					if waited := time.Since(start); waited < e.Timeout {
						t.Errorf("reported after %s, want after the %s timeout the session waits for it", waited, e.Timeout)
					}
				}
			})
		})
	}
}

// TestActorSaysWhatNotificationItWaitsFor: a session that has every
// answer but waits for a recorded notification the live server has not
// sent says so, once, a second into the wait (which notification, how
// long it may wait), and still waits the replay's timeout; one whose
// notification comes sooner says nothing. The wait looked like a hang
// (compare: 30 s a run, without a word).
func TestActorSaysWhatNotificationItWaitsFor(t *testing.T) {
	recorded := []string{"c2s", initReq, "s2c", initResp, "c2s", listReq, "s2c", listResp, "s2c", rootsAsk, "c2s", rootsAnswer, "s2c", rootsNote}
	for _, tc := range []struct {
		name  string
		after time.Duration
		said  int
	}{
		{"late", 50 * time.Millisecond, 0},
		{"never", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := &scripted{in: make(chan transport.Incoming, 8)}
				var wg sync.WaitGroup
				defer wg.Wait()
				c.answer = lateNoting(c, tc.after, &wg)
				e := env(t, &dialer{c: c}, fast)
				e.ValidateNotifications = true
				var logs syncBuffer
				e.Log = zerolog.New(&logs).Level(zerolog.WarnLevel)
				start := time.Now()
				if _, err := replay(t, e, msgs(t, recorded...)); err != nil {
					t.Fatal(err)
				}
				said := strings.Count(logs.String(), "waits for notifications/message (seq 6), which the recorded server sent")
				if said != tc.said || tc.said > 0 && !strings.Contains(logs.String(), "it waits 5s at most (--timeout), then reports it never came") {
					t.Errorf("said %d times what it waits for, want %d; the log:\n%s", said, tc.said, logs.String())
				}
				if waited := time.Since(start); tc.said > 0 && waited < e.Timeout {
					t.Errorf("compared after %s, want after the %s timeout", waited, e.Timeout)
				}
			})
		})
	}
}

// syncBuffer is a bytes.Buffer for a logger written from the actor's
// goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
