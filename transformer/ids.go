package transformer

import "strconv"

// IDs hands out fresh request ids: 1, 2, 3… in each session, so every
// replayed session has its own id space, whatever ids were recorded.
// An IDs is owned by one goroutine (the transform stage).
type IDs struct {
	next map[string]int64
}

// NewIDs returns an empty id space.
func NewIDs() *IDs { return &IDs{next: make(map[string]int64)} }

// Fresh returns the next unused id of session, as JSON bytes.
func (x *IDs) Fresh(session string) []byte { return x.AppendFresh(nil, session) }

// AppendFresh is Fresh appending to dst, for callers that reuse buffers.
func (x *IDs) AppendFresh(dst []byte, session string) []byte {
	n := x.next[session] + 1
	x.next[session] = n
	return strconv.AppendInt(dst, n, 10)
}
