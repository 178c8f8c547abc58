package record

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestUnansweredError: the error says how many requests went
// unanswered and after what (the drain, or the server's end), names
// each (at most ten, then how many more), names the server's requests
// the input left unanswered, and matches ErrUnanswered.
func TestUnansweredError(t *testing.T) {
	call := Unanswered{Method: "tools/call", ID: json.RawMessage(`2`), Line: 3, Seq: 2}
	ask := Unanswered{Method: "elicitation/create", ID: json.RawMessage(`"e1"`), Seq: 5}
	var many []Unanswered
	for i := range 12 {
		many = append(many, Unanswered{Method: "ping", ID: json.RawMessage{byte('a' + i)}, Line: i + 1, Seq: int64(i)})
	}
	for _, tc := range []struct {
		name string
		err  *UnansweredError
		want []string
		not  []string
	}{
		{"drained", &UnansweredError{Requests: []Unanswered{call}, Drain: time.Second}, []string{
			"record: 1 request was never answered: the server said nothing for --drain 1s after the input's end: tools/call id 2 (line 3 of the input, seq 2); the tape keeps it as sent, unanswered; give a slow server longer",
		}, []string{"server's request"}},
		{"the server ended", &UnansweredError{Requests: []Unanswered{call, call}}, []string{
			"2 requests were never answered before the server ended: tools/call id 2",
			"keeps them as sent",
		}, []string{"--drain"}},
		{"the client's output closed", &UnansweredError{Requests: []Unanswered{call}, ClientGone: true}, []string{
			"1 request was never answered before the client's output was closed: tools/call id 2",
		}, []string{"--drain", "server ended"}},
		{"the server asked", &UnansweredError{Requests: []Unanswered{call}, Asked: []Unanswered{ask}, Drain: time.Second}, []string{
			`the input never answered the server's request elicitation/create id "e1" (seq 5) (a file cannot`,
		}, nil},
		{"many", &UnansweredError{Requests: many, Drain: time.Second}, []string{
			"12 requests were", "ping id j (line 10 of the input, seq 9) and 2 more;",
		}, []string{"id k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.err.Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q\nwant it to say %q", got, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("got %q\nwant it not to say %q", got, n)
				}
			}
			if !errors.Is(error(tc.err), ErrUnanswered) {
				t.Error("does not match ErrUnanswered")
			}
		})
	}
}
