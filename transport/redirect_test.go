package transport

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestSameOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000/other?x=1", true},
		{"http://Example.com/mcp", "http://example.com:80/x", true},
		{"https://example.com/mcp", "https://example.com:443/x", true},
		{"http://127.0.0.1:3000/mcp", "http://127.0.0.1:3001/mcp", false}, // another port
		{"http://example.com/mcp", "https://example.com/mcp", false},      // another scheme
		{"http://example.com/mcp", "http://api.example.com/mcp", false},   // another host, even a subdomain
	}
	for _, tc := range tests {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := SameOrigin(a, b); got != tc.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// credentialHeaders are headers no other origin may see.
var credentialHeaders = []string{"X-Api-Key", "Authorization", "Cookie", HeaderSessionID, "Referer"}

// A redirect within the target's origin is followed with every header;
// one to another origin (here another port of the same host) is refused
// unless followed on purpose, and then none of the user's headers go.
func TestRedirects(t *testing.T) {
	t.Setenv("REPLAYCTL_TEST_KEY", "key-123")
	answer := func(w http.ResponseWriter, r *http.Request, s seen) {
		if s.Method == http.MethodPost {
			writeJSON(w, http.StatusOK, initAnswer)
			return
		}
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
	other := newFake(t, answer)
	origin := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
		case "/away":
			http.Redirect(w, r, other.srv.URL+"/mcp", http.StatusTemporaryRedirect)
		default:
			answer(w, r, s)
		}
	})
	header := http.Header{"X-Api-Key": {"${REPLAYCTL_TEST_KEY}"}, "Authorization": {"Bearer tok-9"}, "Cookie": {"c=1"}}
	initialize := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	tests := []struct {
		name      string
		path      string
		follow    bool
		wantErr   bool
		wantOther bool // the other origin got the request
	}{
		{"same origin", "/old", false, false, false},
		{"another origin, refused", "/away", false, true, false},
		{"another origin, followed without the headers", "/away", true, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(other.requests())
			var opts []ClientOption
			if tc.follow {
				opts = append(opts, FollowRedirects())
			}
			client := NewClient(1, opts...)
			t.Cleanup(client.CloseIdleConnections)
			c, err := HTTP{URL: origin.srv.URL + tc.path, Header: header, Client: client, Logger: testLogger(t)}.Dial(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			err = c.Send(t.Context(), initialize)
			_ = c.Close()
			switch {
			case tc.wantErr && (!errors.Is(err, ErrRedirect) || !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "--follow-redirects")):
				t.Errorf("got %v, want a target error wrapping ErrRedirect that names --follow-redirects", err)
			case !tc.wantErr && err != nil:
				t.Errorf("Send: %v", err)
			}
			got := other.requests()[before:]
			if tc.wantOther != (len(got) > 0) {
				t.Fatalf("the other origin got %d requests, want some: %v", len(got), tc.wantOther)
			}
			for _, s := range got {
				for _, k := range credentialHeaders {
					if v := s.Header.Get(k); v != "" {
						t.Errorf("the other origin got %s: %s", k, v)
					}
				}
				if s.Header.Get("Content-Type") != "application/json" || s.Body != string(initialize) {
					t.Errorf("the other origin got %v %q, want the message as JSON", s.Header, s.Body)
				}
			}
			if tc.path == "/old" {
				reqs := origin.requests()
				last := reqs[len(reqs)-1]
				if last.Header.Get("X-Api-Key") != "key-123" || last.Header.Get("Authorization") != "Bearer tok-9" {
					t.Errorf("same-origin redirect lost the headers: %v", last.Header)
				}
			}
		})
	}
}

// A legacy server that names its message endpoint on another origin is
// treated as a redirect there.
func TestLegacyEndpointOnAnotherOrigin(t *testing.T) {
	other := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) { w.WriteHeader(http.StatusAccepted) })
	legacy := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		writeSSE(w, "event: endpoint\ndata: "+other.srv.URL+"/message?sid=1\n\n")
		<-r.Context().Done()
	})
	header := http.Header{"X-Api-Key": {"key-456"}}
	_, err := LegacySSE{URL: legacy.srv.URL + "/sse", Header: header, Logger: testLogger(t)}.Dial(t.Context(), "s1")
	if !errors.Is(err, ErrRedirect) {
		t.Errorf("got %v, want an error wrapping ErrRedirect", err)
	}
	c, err := LegacySSE{URL: legacy.srv.URL + "/sse", Header: header, Logger: testLogger(t), FollowRedirects: true}.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Send(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	got := other.requests()
	if len(got) != 1 || got[0].Header.Get("X-Api-Key") != "" {
		t.Errorf("the other origin got %d requests, headers %v; want one, without X-Api-Key", len(got), got)
	}
}

func TestForOtherOrigin(t *testing.T) {
	h := http.Header{"Accept": {"a"}, "Content-Type": {"b"}, "Mcp-Protocol-Version": {"c"}, "Mcp-Param-City": {"d"},
		"Mcp-Method": {"e"}, "X-Api-Key": {"f"}, "Authorization": {"g"}, "Mcp-Session-Id": {"h"}, "Referer": {"i"}, "X-Custom": {"j"}}
	ForOtherOrigin(h)
	var got []string
	for k := range h {
		got = append(got, k)
	}
	slices.Sort(got)
	want := []string{"Accept", "Content-Type", "Mcp-Method", "Mcp-Param-City", "Mcp-Protocol-Version"}
	if !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
}

func TestHeaderSecrets(t *testing.T) {
	t.Setenv("REPLAYCTL_TEST_A", "alpha+/")
	t.Setenv("REPLAYCTL_TEST_B", "beta")
	got, err := HeaderSecrets(http.Header{"Authorization": {"Bearer ${REPLAYCTL_TEST_A}"}, "X-Trace": {"${REPLAYCTL_TEST_B}-${REPLAYCTL_TEST_A}", "plain"}})
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"alpha+/", "alpha+/", "beta"}) {
		t.Errorf("got %q, %v; want each value taken from the environment", got, err)
	}
	if _, err := HeaderSecrets(http.Header{"X": {"${REPLAYCTL_SURELY_UNSET}"}}); err == nil || !strings.Contains(err.Error(), "header X") {
		t.Errorf("unset variable: got %v, want the header's error", err)
	}
}
