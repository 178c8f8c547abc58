package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replayctl/replayctl/jsonrpc"
)

// fakeServer is a small MCP server behind the Sessions contract, for the
// listeners' tests: it answers initialize, server/discover, ping,
// tools/list and tools/call of a few tools that exercise the wire —
//
//	echo    answers arguments.text; sends a progress notification first
//	        when the request has a progressToken
//	log     sends notifications/message unsolicited, then answers "logged"
//	sample  asks the client sampling/createMessage and answers its text
//	hangup  returns ErrHangUp
//	fail    returns an error without answering
//	silent  returns nil without answering
//	paced   answers "paced answer" in pieces of 7 bytes (WithPace)
//	held    sends a progress notification, then answers "released" once
//	        release is closed (or fails when ctx is done first)
type fakeServer struct {
	release        chan struct{} // for tool held; nil: never released
	opened, closed atomic.Int64
	mu             sync.Mutex // guards infos
	infos          []SessionInfo
}

func (f *fakeServer) Open(_ context.Context, info SessionInfo) (Session, error) {
	f.opened.Add(1)
	f.mu.Lock()
	f.infos = append(f.infos, info)
	f.mu.Unlock()
	return &fakeSession{srv: f, info: info, waiting: map[string]chan []byte{}}, nil
}

func (f *fakeServer) sessionInfos() []SessionInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]SessionInfo(nil), f.infos...)
}

type fakeSession struct {
	srv  *fakeServer
	info SessionInfo

	mu          sync.Mutex // guards the fields below
	unsolicited Send
	waiting     map[string]chan []byte // server request id key → its answer
	next        int
	closed      bool
}

func (s *fakeSession) SetUnsolicited(send Send) {
	s.mu.Lock()
	s.unsolicited = send
	s.mu.Unlock()
}

func (s *fakeSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("fake: closed twice")
	}
	s.closed = true
	s.srv.closed.Add(1)
	return nil
}

func (s *fakeSession) Handle(ctx context.Context, msg []byte, send Send) error {
	m, err := jsonrpc.Parse(msg)
	if err != nil {
		return err
	}
	switch m.Kind {
	case jsonrpc.KindResponse, jsonrpc.KindError:
		s.mu.Lock()
		ch := s.waiting[jsonrpc.IDKey(m.ID)]
		s.mu.Unlock()
		if ch != nil {
			ch <- append([]byte(nil), msg...)
		}
		return nil
	case jsonrpc.KindNotification:
		return nil
	}
	return s.answer(ctx, m, send)
}

func (s *fakeSession) result(id []byte, result string) []byte {
	if s.info.Stateless && result != "{}" {
		result = `{"resultType":"complete",` + result[1:]
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func (s *fakeSession) answer(ctx context.Context, m jsonrpc.Message, send Send) error {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params(), &p)
		return send(ctx, s.result(m.ID, fmt.Sprintf(
			`{"protocolVersion":%q,"capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"fake","version":"1"}}`, p.ProtocolVersion)))
	case "server/discover":
		return send(ctx, s.result(m.ID,
			`{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}}}`))
	case "ping":
		return send(ctx, s.result(m.ID, `{}`))
	case "tools/list":
		return send(ctx, s.result(m.ID, `{"tools":[`+
			`{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},`+
			`{"name":"log","inputSchema":{"type":"object"}},`+
			`{"name":"sample","inputSchema":{"type":"object"}}]}`))
	case "tools/call":
		return s.call(ctx, m, send)
	}
	return send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"fake: no method %s"}}`, m.ID, m.Method))
}

func (s *fakeSession) call(ctx context.Context, m jsonrpc.Message, send Send) error {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Meta      map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params(), &p); err != nil {
		return err
	}
	text := func(t string) []byte {
		b, _ := json.Marshal(t)
		return s.result(m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":%s}]}`, b))
	}
	switch p.Name {
	case "echo":
		if tok, ok := p.Meta["progressToken"]; ok {
			tb, _ := json.Marshal(tok)
			if err := send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":1,"total":2}}`, tb)); err != nil {
				return err
			}
		}
		t, _ := p.Arguments["text"].(string)
		return send(ctx, text(t))
	case "log":
		s.mu.Lock()
		u := s.unsolicited
		s.mu.Unlock()
		if u != nil {
			if err := u(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"fake log"}}`)); err != nil {
				return err
			}
		}
		return send(ctx, text("logged"))
	case "sample":
		return s.sample(ctx, m, send, text)
	case "hangup":
		return ErrHangUp
	case "fail":
		return errors.New("fake: failing on purpose")
	case "silent":
		return nil
	case "paced":
		return send(WithPace(ctx, 7, time.Microsecond), text("paced answer"))
	case "held":
		if err := send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"h","progress":1}}`)); err != nil {
			return err
		}
		select {
		case <-s.srv.release:
			return send(ctx, text("released"))
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"fake: no tool %s"}}`, m.ID, p.Name))
}

func (s *fakeSession) sample(ctx context.Context, m jsonrpc.Message, send Send, text func(string) []byte) error {
	s.mu.Lock()
	s.next++
	id := fmt.Sprintf(`"srv-%d"`, s.next)
	ch := make(chan []byte, 1)
	s.waiting[jsonrpc.IDKey([]byte(id))] = ch
	s.mu.Unlock()
	req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"capital of France?"}}],"maxTokens":10}}`, id)
	if err := send(ctx, req); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case resp := <-ch:
		var r struct {
			Result struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(resp, &r); err != nil {
			return err
		}
		return send(ctx, text("sampled "+r.Result.Content.Text))
	}
}
