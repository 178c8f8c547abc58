package replay_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/tape"
)

// taskServer is an MCP server with tasks in both designs (the go-sdk has
// none): a tools/call asking for a task (2025-11-25: params.task; 2026:
// the tasks extension) gets a task with a fresh id, which stays "working"
// for 0 to 4 polls (the n-th task made: n mod 5) before it completes.
type taskServer struct {
	mu    sync.Mutex
	tasks map[string]int // id → polls left before it completes
	made  int            // tasks made
	polls int            // tasks/get answered, all tasks
}

func (s *taskServer) serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string          `json:"protocolVersion"`
				TaskID          string          `json:"taskId"`
				Task            json.RawMessage `json:"task"`
				Meta            map[string]any  `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue // notifications
		}
		stateless := m.Params.Meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
		res, errObj := s.answer(m.Method, m.Params.ProtocolVersion, m.Params.TaskID, m.Params.Task != nil, stateless)
		var line []byte
		if errObj != "" {
			line = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, m.ID, errObj)
		} else {
			line = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res)
		}
		w.Write(append(line, '\n'))
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (s *taskServer) answer(method, version, taskID string, asksTask, stateless bool) (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	switch method {
	case "initialize":
		return fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"tasks","version":"1"}}`, version), ""
	case "server/discover":
		return `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`, ""
	case "tools/call":
		if !asksTask && !stateless {
			return `{"content":[{"type":"text","text":"at once"}]}`, ""
		}
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		id := hex.EncodeToString(b)
		s.tasks[id] = s.made % 5
		s.made++
		if stateless {
			return fmt.Sprintf(`{"resultType":"task","taskId":%q,"status":"working","createdAt":%q,"lastUpdatedAt":%q,"ttlMs":60000,"pollIntervalMs":5}`, id, now, now), ""
		}
		return fmt.Sprintf(`{"task":{"taskId":%q,"status":"working","createdAt":%q,"lastUpdatedAt":%q,"ttl":60000,"pollInterval":5}}`, id, now, now), ""
	case "tasks/get", "tasks/result":
		left, ok := s.tasks[taskID]
		if !ok {
			return "", fmt.Sprintf(`{"code":-32602,"message":"no task %s"}`, taskID)
		}
		if method == "tasks/result" { // blocks until the end: here, ends it
			s.tasks[taskID] = 0
			return fmt.Sprintf(`{"content":[{"type":"text","text":"done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":%q}}}`, taskID), ""
		}
		s.polls++
		status, extra := "working", ""
		if left > 0 {
			s.tasks[taskID] = left - 1
		} else {
			status = "completed"
			if stateless {
				extra = `,"result":{"content":[{"type":"text","text":"done"}]}`
			}
		}
		if stateless {
			return fmt.Sprintf(`{"resultType":"complete","taskId":%q,"status":%q,"createdAt":%q,"lastUpdatedAt":%q,"ttlMs":60000,"pollIntervalMs":5%s}`, taskID, status, now, now, extra), ""
		}
		return fmt.Sprintf(`{"taskId":%q,"status":%q,"createdAt":%q,"lastUpdatedAt":%q,"ttl":60000,"pollInterval":5}`, taskID, status, now, now), ""
	}
	return "", fmt.Sprintf(`{"code":-32601,"message":"no method %s"}`, method)
}

// taskTape writes a tape by hand: the recorded task took two polls
// "working", then one "completed".
func taskTape(stateless bool) tape.Source { return taskTapeLate(stateless, 0) }

// taskTapeLate is taskTape where, late > 0, the answer that completed
// the recorded task came late after its poll, with a client notification
// (roots/list_changed) between the two: a replay sends the notification,
// and only then reads the recorded answer, late after the poll.
func taskTapeLate(stateless bool, late time.Duration) tape.Source {
	const at = `"createdAt":"2026-11-01T10:00:00Z","lastUpdatedAt":"2026-11-01T10:00:00Z"`
	var msgs []string
	if stateless {
		const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
		msgs = []string{
			`c {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
			`s {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}`,
			`c {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"slow","arguments":{}}}`,
			`s {"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"rec-1","status":"working",` + at + `,"ttlMs":60000,"pollIntervalMs":5}}`,
		}
		for i, status := range []string{"working", "working", "completed"} {
			extra := ""
			if status == "completed" {
				extra = `,"result":{"content":[{"type":"text","text":"done"}]}`
			}
			msgs = append(msgs,
				fmt.Sprintf(`c {"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{`+meta+`,"taskId":"rec-1"}}`, 3+i),
				fmt.Sprintf(`s {"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","taskId":"rec-1","status":%q,`+at+`,"ttlMs":60000,"pollIntervalMs":5%s}}`, 3+i, status, extra))
		}
	} else {
		msgs = []string{
			`c {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`s {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"tasks","version":"1"}}}`,
			`c {"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`c {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{},"task":{"ttl":60000}}}`,
			`s {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"rec-1","status":"working",` + at + `,"ttl":60000,"pollInterval":5}}}`,
		}
		for i, status := range []string{"working", "working", "completed"} {
			msgs = append(msgs,
				fmt.Sprintf(`c {"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":"rec-1"}}`, 3+i),
				fmt.Sprintf(`s {"jsonrpc":"2.0","id":%d,"result":{"taskId":"rec-1","status":%q,`+at+`,"ttl":60000,"pollInterval":5}}`, 3+i, status))
		}
		msgs = append(msgs,
			`c {"jsonrpc":"2.0","id":6,"method":"tasks/result","params":{"taskId":"rec-1"}}`,
			`s {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"rec-1"}}}}`)
	}
	var b strings.Builder
	version := map[bool]string{true: "2026-07-28", false: "2025-11-25"}[stateless]
	fmt.Fprintf(&b, `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":%q,"transport":"stdio"}`+"\n", version)
	if late > 0 {
		last := len(msgs) - 1 // the answer that completed the task
		if !stateless {
			last -= 2 // before tasks/result and its answer
		}
		msgs = slices.Insert(msgs, last, `c {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	}
	var when time.Duration
	for i, m := range msgs {
		dir := map[byte]string{'c': "c2s", 's': "s2c"}[m[0]]
		if strings.Contains(m, "list_changed") {
			when += late
		}
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":%q,"msg":%s}`+"\n", i, when.Microseconds(), dir, m[2:])
		when += time.Millisecond
	}
	return tape.Bytes("tasks-"+version+".jsonl", []byte(b.String()))
}

// Tasks replay by their outcome: the live task's id is sent in place of
// the recorded one, and it may take more or fewer polls than recorded.
func TestTasksByOutcome(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{true: "2026-07-28", false: "2025-11-25"}[stateless], func(t *testing.T) {
			s := &taskServer{tasks: map[string]int{}}
			rep, err := replay.RunSource(t.Context(), taskTape(stateless), replay.WithSpeed(replay.Fast()), replay.Sessions(20),
				replay.Against(replay.Streams(s.serve)))
			if rep == nil || err != nil || !rep.Passed() {
				t.Fatalf("err %v; %+v; errors %+v", err, rep.Validation, rep.Errors)
			}
			// Each session sends its three recorded polls; the live tasks
			// that stay working for 3 or 4 polls (4 of each) are polled
			// again until they complete: 1 and 2 more.
			if want := 20*3 + 4*1 + 4*2; s.polls != want {
				t.Errorf("%d polls for 20 tasks, want %d", s.polls, want)
			}
			rep, err = replay.RunSource(t.Context(), taskTape(stateless), replay.WithSpeed(replay.Fast()))
			if rep == nil || err != nil || !rep.Passed() {
				t.Fatalf("against the mock: err %v; %+v", err, rep.Validation)
			}
		})
	}
}

// TestTasksResultWaitsForThePolls: what the recording sent once its task
// had completed (tasks/result) waits until the live task has completed
// too, whichever of the live and the recorded answer to the last recorded
// poll the replay sees first. Here the live answer comes first: the
// recorded one is read 200ms after the poll. The live task stays working
// for 4 polls: the 3 recorded ones and 2 more must all go before
// tasks/result, which would end the task early.
func TestTasksResultWaitsForThePolls(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{true: "2026-07-28", false: "2025-11-25"}[stateless], func(t *testing.T) {
			s := &taskServer{tasks: map[string]int{}, made: 4} // its first task: 4 polls working
			rep, err := replay.RunSource(t.Context(), taskTapeLate(stateless, 200*time.Millisecond),
				replay.Against(replay.Streams(s.serve)))
			if rep == nil || err != nil || !rep.Passed() {
				t.Fatalf("err %v; %+v; errors %+v", err, rep.Validation, rep.Errors)
			}
			if want := 3 + 2; s.polls != want {
				t.Errorf("%d polls, want %d: the 3 recorded and 2 more until the live task completed", s.polls, want)
			}
		})
	}
}
