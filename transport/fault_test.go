package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// faultWait bounds a wait for a fault: a failure deadline.
const faultWait = 30 * time.Second

// TestHTTPOnFaultLostAnswer: a POST of a request whose answer does not
// come — a body that is not JSON, a Content-Type that is neither JSON
// nor an event stream, a JSON body answering another id, an event
// stream cut mid-event with no ids to resume it, no body at all — is
// told to OnFault with the request's id and what went wrong; an answered
// request is not.
func TestHTTPOnFaultLostAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   string // in the fault's error; "" for no fault
	}{
		{"not JSON", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "<html>oops</html>")
		}, "is not JSON"},
		{"html", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>oops</html>")
		}, "neither JSON nor an event stream"},
		{"another id", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
		}, "no answer to the request"},
		{"stream cut", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":")
			_ = http.NewResponseController(w).Flush()
			panic(http.ErrAbortHandler)
		}, "event stream"},
		{"no body", func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) }, "no body"},
		{"answered", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				tc.answer(w)
			})
			faults := make(chan Fault, 4)
			conn, err := HTTP{URL: f.srv.URL + "/mcp", OnFault: func(f Fault) { faults <- f }}.Dial(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			if err := conn.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)); err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				select {
				case in := <-conn.Incoming():
					if !strings.Contains(string(in.Msg), `"id":7`) {
						t.Errorf("got %s, want the answer", in.Msg)
					}
				case <-time.After(faultWait):
					t.Fatal("no answer")
				}
				conn.Close()
				if len(faults) > 0 {
					t.Errorf("got fault %v for an answered request", (<-faults).Err)
				}
				return
			}
			go func() { // the connection delivers nothing here; drain it
				for range conn.Incoming() {
				}
			}()
			defer conn.Close()
			select {
			case got := <-faults:
				if string(got.ID) != "7" || !strings.Contains(got.Err.Error(), tc.want) || !strings.Contains(got.Err.Error(), f.srv.URL) {
					t.Errorf("got fault {ID %s, Err %v}, want id 7 and an error naming the URL saying %q", got.ID, got.Err, tc.want)
				}
			case <-time.After(faultWait):
				t.Fatal("no fault")
			}
		})
	}
}

// TestStdioOnFaultNonJSON: a stdio server's stdout line that is not JSON
// is told to OnFault, naming the server; the connection goes on.
func TestStdioOnFaultNonJSON(t *testing.T) {
	argv, env := helperCommand(t, "echo")
	faults := make(chan Fault, 4)
	conn, err := Stdio{Command: argv, Env: env, OnFault: func(f Fault) { faults <- f }}.Dial(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	select {
	case got := <-faults: // the echo server's banner
		if got.ID != nil || !strings.Contains(got.Err.Error(), "is not JSON") || !strings.Contains(got.Err.Error(), "echo server ready") {
			t.Errorf("got fault {ID %s, Err %v}, want no id and the line", got.ID, got.Err)
		}
	case <-time.After(faultWait):
		t.Fatal("no fault")
	}
	if err := conn.Send(t.Context(), []byte(`{"jsonrpc":"2.0","method":"x"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case in := <-conn.Incoming():
		if string(in.Msg) != `{"jsonrpc":"2.0","method":"x"}` {
			t.Errorf("got %s after the fault", in.Msg)
		}
	case <-time.After(faultWait):
		t.Fatal("the connection did not go on after the fault")
	}
}

// TestHTTPAnswerToServerAccepted: the client's answers to the server's
// requests (a result, an error) POSTed and accepted with 202 and no body,
// as MCP says they are, are no lost answer: nothing is told to OnFault.
// (Each was: "the answer to a request is lost … HTTP 202 with no body",
// a warning per answer a replay sent.)
func TestHTTPAnswerToServerAccepted(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, s seen) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if strings.Contains(s.Body, `"method"`) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	faults := make(chan Fault, 4)
	conn, err := HTTP{URL: f.srv.URL + "/mcp", OnFault: func(f Fault) { faults <- f }}.Dial(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
	} {
		if err := conn.Send(t.Context(), []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	select { // the request's answer: the answers' POSTs were read before it
	case <-conn.Incoming():
	case <-time.After(faultWait):
		t.Fatal("no answer to the request")
	}
	conn.Close()
	if len(faults) > 0 {
		t.Errorf("got fault %v for an answer the server accepted", (<-faults).Err)
	}
}
