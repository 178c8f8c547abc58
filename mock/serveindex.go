package mock

// What a Server's index holds beyond run's mock's (see index): the
// recorded requests themselves (for the subset strategy and to name the
// closest one on a miss), the recorded times (for recorded latency), and
// the server's own requests to its client among the messages sent
// around an answer.

// serveBuild says how a Server's index is built: which members of params
// its hashes leave out.
type serveBuild struct {
	volatile *volatile // nil: nothing left out (the exact strategy)
}

// hash is the params hash of a request of method, without its volatile
// members.
func (sv *serveBuild) hash(c *canon, method string, params []byte) uint64 {
	return c.hashSkip(params, sv.volatile.of(method))
}

// entryInfo is a Server's sidecar of an entry.
type entryInfo struct {
	req  loc   // the recorded request
	t    int64 // when it was recorded (t_us)
	tAns int64 // when its answer was
}

// noteInfo is a Server's sidecar of a note: when it was recorded, and
// whether it is a request to the client (sampling, elicitation, roots,
// ping), whose answer the session waits for, rather than a notification.
type noteInfo struct {
	t   int64
	ask bool
}

// aside is a request the server sent its client while none of the
// client's requests was in flight (on the Streamable HTTP GET stream:
// server-everything's roots/list after initialized): a Server sends it
// on the session's own stream once the live client has sent as many
// messages as the recorded one had (after), not with the next answer,
// which the client may not ask before it has answered this.
type aside struct {
	after int // the recorded client's messages before it
	seq   int64
	at    loc
}

// infoOf returns the sidecar of entry i of session name.
func (idx *index) infoOf(name string, i int) entryInfo { return idx.info[name][i] }

// noteInfoOf returns the sidecar of the k-th note of e (as notesOf lists
// them).
func (idx *index) noteInfoOf(e *entry, k int) noteInfo {
	r := idx.noteRuns[e.notes-1]
	return idx.noteInfo[r.first+uint32(k)]
}
