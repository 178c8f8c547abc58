package record

import (
	"slices"
	"strconv"
)

// lanes splits the traffic of clients that have no session id (the
// stateless revision, or a server that hands out none) into tape
// sessions, one per client as well as the wire lets it tell: the client's
// IP address, its clientInfo when the message carries one (a 2026
// request's _meta, an initialize's params), then its JSON-RPC ids, which
// a client never reuses, and its connections.
//
// A message goes to the lanes of its host whose clientInfo is its own (a
// message without one: any of them). A request goes to the lane of the
// connection it came on, if that lane has not used its id; otherwise to
// a lane that has every request answered and has not used the id, the
// one with the highest numeric id below it (a client counting 1, 2, 3
// that opened a new connection); otherwise to a new lane. So one client
// whose HTTP library spreads its requests over pooled connections stays
// one session, and identical clients that run at once (same program,
// same host) become one session each, as their ids tell them apart.
//
// Pure bookkeeping: the proxy calls it with its lock held.
type lanes struct {
	byHost map[string][]*lane
}

// lane is one tape session of clients without a session id.
type lane struct {
	name    string
	info    string              // the clientInfo its messages carry, "" if none yet
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
// notification or a batch) and clientInfo info ("" for none) from host on
// conn, making a lane named by newName when none fits, and notes the
// request in it.
func (ls *lanes) pick(host, info, conn, id string, seq int, newName func() string) *lane {
	if ls.byHost == nil {
		ls.byHost = map[string][]*lane{}
	}
	var cands []*lane
	for _, l := range ls.byHost[host] {
		if info == "" || l.info == "" || l.info == info {
			cands = append(cands, l)
		}
	}
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
		ls.byHost[host] = append(ls.byHost[host], chosen)
	}
	if chosen.info == "" {
		chosen.info = info
	}
	for _, l := range ls.byHost[host] {
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
