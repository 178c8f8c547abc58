package tape

// SSEEvent is splitSSE's event, for the tests of package tape_test.
type SSEEvent struct {
	ID, Event string
	Data      []byte
	Retry     int64
}

// SplitSSE is splitSSE, for the tests of package tape_test.
func SplitSSE(body []byte) ([]SSEEvent, bool) {
	evs, tail := splitSSE(body)
	out := make([]SSEEvent, len(evs))
	for i, e := range evs {
		out[i] = SSEEvent{e.id, e.event, e.data, e.retry}
	}
	return out, tail
}
