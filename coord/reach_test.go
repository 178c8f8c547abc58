package coord

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// lateCoordinator is a coordinator that cannot be reached (connection
// refused) until up after the first try, then answers Run: a
// coordinator pod that starts after its shards. It counts the tries.
type lateCoordinator struct {
	first time.Time
	up    time.Duration
	tries int
}

func (l *lateCoordinator) RoundTrip(req *http.Request) (*http.Response, error) {
	if l.tries++; l.tries == 1 {
		l.first = time.Now()
	}
	if time.Since(l.first) < l.up {
		return nil, &refusedError{syscall.ECONNREFUSED}
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req,
		Body: io.NopCloser(strings.NewReader(`{"action":"run","heartbeat":10000000000,"interval":1000000000}`))}, nil
}

type refusedError struct{ err error }

func (e *refusedError) Error() string { return "dial tcp 127.0.0.1:7340: " + e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// TestRegisterWaitsForALateCoordinator: Register retries a coordinator
// that starts late for ReachTimeout (the default, 10 s, gives up on one
// 30 s late: a Kubernetes coordinator pod whose image is being pulled),
// and says once, when it starts waiting, why. The clock is synctest's.
func TestRegisterWaitsForALateCoordinator(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []ClientOption
		up      time.Duration
		wantRun bool
	}{
		{"default, on time", nil, 2 * time.Second, true},
		{"default, 30s late", nil, 30 * time.Second, false},
		{"5m, 30s late", []ClientOption{ReachTimeout(5 * time.Minute)}, 30 * time.Second, true},
		{"5m, 4m late", []ClientOption{ReachTimeout(5 * time.Minute)}, 4 * time.Minute, true},
		{"1m, 4m late", []ClientOption{ReachTimeout(time.Minute)}, 4 * time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				late := &lateCoordinator{up: tc.up}
				var waited []error
				opts := append(tc.opts, OnWaiting(func(err error) { waited = append(waited, err) }))
				c := NewClient("http://127.0.0.1:7340", "", hello(0, 1, "a"), opts...)
				c.http = &http.Client{Transport: late}
				r, err := c.Register(context.Background())
				if got := err == nil && r.Action == Run; got != tc.wantRun {
					t.Fatalf("Register after %d tries: %+v, %v; want run %v", late.tries, r, err, tc.wantRun)
				}
				if !tc.wantRun && !errors.Is(err, syscall.ECONNREFUSED) {
					t.Errorf("Register: %v, want the refused connection", err)
				}
				if len(waited) != 1 || !errors.Is(waited[0], syscall.ECONNREFUSED) {
					t.Errorf("OnWaiting called with %v, want once with the refused connection", waited)
				}
			})
		})
	}
}
