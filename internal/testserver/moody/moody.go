// Package moody is a tiny stateless Streamable HTTP MCP test server whose
// mood is set between runs: a delay per method, and tools it answers
// wrongly. It answers as the slow test server does (slowmcp.Answer), so a
// tape written with [Tape] matches it while its mood is good. It is for
// tests of run histories: a tool wrong in some runs (flaky), a method
// made slower from some run on.
package moody

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/replayctl/replayctl/internal/testserver/slowmcp"
)

// Server is an http.Handler; its mood may be changed while it serves.
type Server struct {
	mu    sync.Mutex // guards delay and wrong
	delay map[string]time.Duration
	wrong map[string]bool
}

// New returns a server with no delay that answers every tool right.
func New() *Server {
	return &Server{delay: map[string]time.Duration{}, wrong: map[string]bool{}}
}

// SetDelay answers every request of method after d.
func (s *Server) SetDelay(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay[method] = d
}

// SetWrong makes tools/call of tool answer "wrong" in place of its text
// (wrong true), or right again.
func (s *Server) SetWrong(tool string, wrong bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wrong[tool] = wrong
}

func (s *Server) mood(method, tool string) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delay[method], s.wrong[tool]
}

// ServeHTTP answers one POSTed JSON-RPC message.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "moody: POST a JSON-RPC message", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m := slowmcp.Parse(body)
	if m.Kind != slowmcp.Request {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p)
	delay, wrong := s.mood(m.Method, p.Name)
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	answer := slowmcp.Answer(m)
	if wrong && m.Method == "tools/call" {
		answer = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"wrong"}]}}`, m.ID))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(answer)
}

// Tape writes a tape of one session: the handshake, then n rounds of a
// tools/call of each tool (arguments.text "<tool> <i>") and a ping, each
// round's requests in flight together, with the answers the server gives
// in a good mood.
func Tape(n int, tools ...string) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"http"}` + "\n")
	seq, id := 0, 0
	line := func(dir string, msg []byte) {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"%s","msg":%s}`+"\n", seq, seq*100, dir, msg)
		seq++
	}
	request := func(method, params string) []byte {
		id++
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}`, id, method, params))
	}
	init := request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"moody-test","version":"1"}}`)
	line("c2s", init)
	line("s2c", slowmcp.Answer(slowmcp.Parse(init)))
	line("c2s", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for i := range n {
		var reqs [][]byte
		for _, tool := range tools {
			reqs = append(reqs, request("tools/call", fmt.Sprintf(`{"name":%q,"arguments":{"text":"%s %d"}}`, tool, tool, i)))
		}
		reqs = append(reqs, request("ping", `{}`))
		for _, r := range reqs {
			line("c2s", r)
		}
		for _, r := range reqs {
			line("s2c", slowmcp.Answer(slowmcp.Parse(r)))
		}
	}
	return []byte(b.String())
}
