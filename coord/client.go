package coord

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Client is a shard's side of the protocol: it registers, waits for the
// start, streams interval reports, watches for a stop, and delivers the
// final report. Its calls retry a failed connection for as long as the
// coordinator waits for a shard it does not hear from (Reply.Heartbeat,
// DefaultHeartbeat before the first reply). A Client is used by one
// goroutine at a time, but Watch, which runs beside the others.
type Client struct {
	url, token string
	hello      Hello
	http       *http.Client
	heartbeat  time.Duration // set from the first reply, then read only
	interval   time.Duration
	reach      time.Duration   // how long Register retries a coordinator it cannot reach
	waiting    func(err error) // called once, when Register's first try fails
}

// ClientOption configures a [Client].
type ClientOption func(*Client)

// ReachTimeout is how long Register retries a coordinator it cannot
// reach (refused connections, 5xx) before it gives up: DefaultHeartbeat
// by default. A coordinator that starts after its shards (a pod whose
// image is still being pulled) needs longer; d <= 0 keeps the default.
func ReachTimeout(d time.Duration) ClientOption {
	return func(c *Client) {
		if d > 0 {
			c.reach = d
		}
	}
}

// OnWaiting calls f once, with the error, when Register's first try to
// reach the coordinator fails and the client starts retrying: the shard
// can say what it waits for.
func OnWaiting(f func(err error)) ClientOption { return func(c *Client) { c.waiting = f } }

// NewClient returns the client of the shard hello to the coordinator at
// url (http://host:port), sending token ("" for none).
func NewClient(url, token string, hello Hello, opts ...ClientOption) *Client {
	c := &Client{url: strings.TrimRight(url, "/"), token: token, hello: hello, http: &http.Client{}, heartbeat: DefaultHeartbeat, interval: DefaultInterval, reach: DefaultHeartbeat}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Interval is how often the coordinator wants an interval report (known
// after Register).
func (c *Client) Interval() time.Duration { return c.interval }

// Register registers the shard and returns the coordinator's decision:
// Run (wait for the start: WaitStart), Resume, or Stop with its reason.
// An error wraps [ErrRefused] when the coordinator refused the shard.
// A coordinator that cannot be reached is retried for the ReachTimeout.
func (c *Client) Register(ctx context.Context) (Reply, error) {
	r, err := c.callFor(ctx, PathRegister, c.hello, 0, c.reach, c.waiting)
	if err == nil && r.Heartbeat > 0 {
		c.heartbeat, c.interval = r.Heartbeat, r.Interval
	}
	return r, err
}

// WaitStart waits for the common start: it returns Run with Start once
// every shard has registered, or Stop. It returns when ctx is done.
func (c *Client) WaitStart(ctx context.Context) (Reply, error) {
	for {
		r, err := c.call(ctx, PathStart, c.hello, c.heartbeat)
		if err != nil || r.Action != Continue {
			return r, err
		}
	}
}

// Watch waits for the coordinator to stop the shard and returns why. It
// returns when ctx is done ("", ctx's error), or with an error when the
// coordinator cannot be reached for the heartbeat.
func (c *Client) Watch(ctx context.Context) (string, error) {
	r, err := c.WatchStop(ctx)
	return r.Reason, err
}

// WatchStop is Watch returning the Stop reply itself: why (Reason) and
// the stop's kind (Kind).
func (c *Client) WatchStop(ctx context.Context) (Reply, error) {
	for {
		r, err := c.call(ctx, PathControl, c.hello, c.heartbeat)
		switch {
		case err != nil:
			return Reply{}, err
		case r.Action == Stop:
			return r, nil
		}
	}
}

// Send streams one interval report and returns the coordinator's answer:
// Continue, or Stop with why.
func (c *Client) Send(ctx context.Context, iv Interval) (Reply, error) {
	iv.Index, iv.Attempt = c.hello.Index, c.hello.Attempt
	return c.call(ctx, PathInterval, iv, 0)
}

// Deliver sends the final report (or why there is none).
func (c *Client) Deliver(ctx context.Context, f Final) error {
	f.Index, f.Attempt = c.hello.Index, c.hello.Attempt
	_, err := c.call(ctx, PathFinal, f, 0)
	return err
}

// call posts v to path and decodes the reply, retrying a failed
// connection or a 5xx with exponential backoff for up to the heartbeat;
// poll is how long the coordinator may hold the call (a long poll), 0
// for none.
func (c *Client) call(ctx context.Context, path string, v any, poll time.Duration) (Reply, error) {
	return c.callFor(ctx, path, v, poll, c.heartbeat, nil)
}

// callFor is call retrying for up to retryFor; waiting (nil for none) is
// called with the first try's error when it is retried.
func (c *Client) callFor(ctx context.Context, path string, v any, poll, retryFor time.Duration, waiting func(error)) (Reply, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return Reply{}, fmt.Errorf("coord: %s: %w", path, err)
	}
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = 50 * time.Millisecond
	b.MaxInterval = time.Second
	b.MaxElapsedTime = retryFor
	var reply Reply
	op := func() error {
		cctx, cancel := context.WithTimeout(ctx, poll+c.heartbeat)
		defer cancel()
		req, err := http.NewRequestWithContext(cctx, http.MethodPost, c.url+path, bytes.NewReader(body))
		if err != nil {
			return backoff.Permanent(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return backoff.Permanent(ctx.Err())
			}
			return err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			var we wireError
			_ = json.Unmarshal(data, &we)
			err := fmt.Errorf("the coordinator answered %s: %s", resp.Status, we.Error)
			if resp.StatusCode >= 500 {
				return err
			}
			return backoff.Permanent(fmt.Errorf("%w: %w", ErrRefused, err))
		}
		reply = Reply{}
		if err := json.Unmarshal(data, &reply); err != nil {
			return backoff.Permanent(fmt.Errorf("the coordinator's answer is not the protocol's JSON: %v", err))
		}
		return nil
	}
	tries := 0
	notify := func(err error, _ time.Duration) {
		if tries++; tries == 1 && waiting != nil {
			waiting(err)
		}
	}
	if err := backoff.RetryNotify(op, backoff.WithContext(b, ctx), notify); err != nil {
		if errors.Is(err, ErrRefused) || ctx.Err() != nil {
			return Reply{}, err
		}
		return Reply{}, fmt.Errorf("coord: %s at %s: %w", path, c.url, err)
	}
	return reply, nil
}
