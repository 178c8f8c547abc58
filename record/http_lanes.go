package record

import (
	"slices"
	"strconv"
)

// lanes splits the traffic of clients that have no session id (the
// stateless revision, or a server that hands out none) into tape
// sessions, one per client as well as the wire lets it tell: the client's
// key (its IP address and clientInfo) first, then its JSON-RPC ids, which
// a client never reuses, and its connections.
//
// A request goes to the lane of the connection it came on, if that lane
// has not used its id. Otherwise to a lane of the same key that has every
// request answered and has not used the id, preferring the one whose
// last numeric id is the one before (a client counting 1, 2, 3 that
// opened a new connection); otherwise a new lane. So one client whose
// HTTP library spreads its requests over pooled connections stays one
// session, and identical clients that run at once (same program, same
// host) become one session each, as their ids tell them apart.
//
// Pure bookkeeping: the proxy calls it with its lock held.
type lanes struct {
	byKey map[string][]*lane
}

// lane is one tape session of clients without a session id.
type lane struct {
	name    string
	conn    string              // the connection of its last request
	last    int64               // its highest numeric id; -1 if none
	recent  []string            // its last string ids (ids that are not numbers)
	pending map[string]struct{} // its requests not answered yet
	joined  bool                // a session id took it over (see answerSession)
	seq     int                 // when it was last given a message
}

// maxRecentIDs bounds what a lane keeps of string ids.
const maxRecentIDs = 64

// uses says whether the lane has already sent id (key: jsonrpc.IDKey).
func (l *lane) uses(id string, n int64, numeric bool) bool {
	if numeric {
		return n <= l.last
	}
	return slices.Contains(l.recent, id)
}

// numericID reads an id that is a JSON integer.
func numericID(id string) (int64, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil
}

// pick returns the lane of a message with id (jsonrpc.IDKey; "" for a
// notification or a batch) from client key on conn, making a lane named
// by newName when none fits, and notes the request in it.
func (ls *lanes) pick(key, conn, id string, seq int, newName func() string) *lane {
	if ls.byKey == nil {
		ls.byKey = map[string][]*lane{}
	}
	cands := ls.byKey[key]
	var bound *lane
	for _, l := range cands {
		if l.conn == conn {
			bound = l
		}
	}
	var chosen *lane
	if id == "" {
		chosen = bound
		if chosen == nil { // the lane that last had a message
			for _, l := range cands {
				if chosen == nil || l.seq > chosen.seq {
					chosen = l
				}
			}
		}
	} else {
		n, numeric := numericID(id)
		if bound != nil && !bound.uses(id, n, numeric) {
			chosen = bound
		} else {
			for _, l := range cands {
				if len(l.pending) > 0 || l.uses(id, n, numeric) {
					continue
				}
				if chosen == nil || (numeric && l.last > chosen.last) { // the highest id below n: the client's last
					chosen = l
				}
			}
		}
	}
	if chosen == nil {
		chosen = &lane{name: newName(), last: -1, pending: map[string]struct{}{}}
		ls.byKey[key] = append(ls.byKey[key], chosen)
	}
	for _, l := range cands {
		if l != chosen && l.conn == conn {
			l.conn = "" // the connection is another client's now
		}
	}
	chosen.conn, chosen.seq = conn, seq
	if id != "" {
		chosen.pending[id] = struct{}{}
		if n, ok := numericID(id); ok {
			chosen.last = max(chosen.last, n)
		} else {
			chosen.recent = append(chosen.recent, id)
			if len(chosen.recent) > maxRecentIDs {
				chosen.recent = chosen.recent[1:]
			}
		}
	}
	return chosen
}

// answered notes that the request id of l has its answer.
func (l *lane) answered(id string) { delete(l.pending, id) }
