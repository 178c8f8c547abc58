package ui

import (
	"bytes"
	"slices"
	"sync"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
)

// Group kinds: the page draws the requests of one group in a lane as one
// bracket, with a count.
const (
	// groupRounds is an MRTR chain: a request answered input_required and
	// its retries (params with inputResponses or requestState), of the
	// same method and name in the same session, up to the round answered
	// otherwise.
	groupRounds = "rounds"
	// groupTask is a task: the request whose answer created it and every
	// tasks/get, tasks/result, tasks/update, tasks/cancel of its id in the
	// same session.
	groupTask = "task"
)

// grouper finds the group of each request as its result comes, from the
// request and the answer (the only place both are known: the feed's
// events carry no bytes). It keeps the open MRTR chains, and the tasks
// seen until the client is done with one (tasks/result, tasks/cancel)
// or, past maxOpen open ones, the oldest is forgotten.
type grouper struct {
	mu     sync.Mutex // guards what follows: results of many sessions at once (serve)
	next   int
	chains map[mcp.Thread]int // the open chains → their ids
	tasks  map[mcp.Thread]int // the tasks → their groups' ids
	order  []mcp.Thread       // tasks' keys, oldest first (for the bound)
}

// maxOpen bounds the open chains and tasks the grouper remembers.
const maxOpen = 100_000

func newGrouper() *grouper {
	return &grouper{chains: map[mcp.Thread]int{}, tasks: map[mcp.Thread]int{}}
}

// group returns the group of a client's request of method in session,
// sent as out and answered with answer (nil: no answer), and its kind;
// 0 and "" when it belongs to none.
func (g *grouper) group(session, method, name string, out, answer []byte) (int, string) {
	req, err := jsonrpc.Parse(out)
	if err != nil || req.Kind != jsonrpc.KindRequest {
		return 0, ""
	}
	params := req.Params()
	var result []byte
	if a, err := jsonrpc.Parse(answer); err == nil {
		result = a.Result()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if mcp.OnTask(method) {
		id, ok := mcp.ParamTaskID(params)
		if !ok {
			return 0, ""
		}
		key := mcp.TaskThread(session, id)
		gid := g.task(key)
		// tasks/result and tasks/cancel end what a client does with a
		// task; a terminal status does not (tasks/result follows it).
		if method == mcp.MethodTasksResult || method == mcp.MethodTasksCancel {
			delete(g.tasks, key)
		}
		return gid, groupTask
	}
	if id, ok := mcp.TaskID(result); ok {
		return g.task(mcp.TaskThread(session, id)), groupTask
	}
	key := mcp.ChainThread(session, method, name)
	gid, open := g.chains[key]
	retry := mcp.IsRetryOf(params)
	asks := mcp.ResultType(result) == mcp.ResultInputRequired
	switch {
	case retry && !open, !retry && asks:
		g.next++
		gid = g.next
	case !retry:
		return 0, "" // a plain request
	}
	if asks {
		if _, ok := g.chains[key]; !ok && len(g.chains) >= maxOpen {
			clear(g.chains)
		}
		g.chains[key] = gid
	} else {
		delete(g.chains, key)
	}
	return gid, groupRounds
}

// task is the group of the task at key, made when new.
func (g *grouper) task(key mcp.Thread) int {
	if gid, ok := g.tasks[key]; ok {
		return gid
	}
	for len(g.tasks) >= maxOpen && len(g.order) > 0 {
		delete(g.tasks, g.order[0])
		g.order = g.order[1:]
	}
	g.next++
	g.tasks[key] = g.next
	g.order = append(g.order, key)
	if len(g.order) > 2*maxOpen { // drop the keys of tasks over
		g.order = slices.DeleteFunc(g.order, func(k mcp.Thread) bool { _, ok := g.tasks[k]; return !ok })
	}
	return g.next
}

// mayGroup reports whether a request sent as out and answered with
// answer may belong to a group: a cheap look for the members that make
// one, before group parses them.
func mayGroup(out, answer []byte) bool {
	return bytes.Contains(out, []byte(`"taskId"`)) || bytes.Contains(out, []byte(`"inputResponses"`)) ||
		bytes.Contains(out, []byte(`"requestState"`)) || bytes.Contains(answer, []byte(`input_required"`)) ||
		bytes.Contains(answer, []byte(`"task`))
}
