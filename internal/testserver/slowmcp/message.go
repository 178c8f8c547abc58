package slowmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// Kind says what a message is, by the JSON-RPC 2.0 rules.
type Kind int

const (
	// Invalid is input that is not JSON (answered -32700) or JSON that is
	// not a message (answered -32600), in both cases with id null.
	Invalid Kind = iota
	// Request has a method and an id, and is answered.
	Request
	// Notification has a method and no id, and is not answered.
	Notification
	// Response has an id and a result or an error: the client answering a
	// request of the server. It is not answered.
	Response
)

// JSON-RPC error codes the server answers with.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
)

// DefaultProtocolVersion is what initialize answers when the client asks
// for a version the server does not know.
const DefaultProtocolVersion = "2025-06-18"

// ProtocolVersions are the versions initialize agrees to when asked.
var ProtocolVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// Message is one JSON-RPC message as the server reads it.
type Message struct {
	Kind   Kind
	Method string          // requests and notifications
	ID     json.RawMessage // as sent; nil for notifications and invalid input
	Params json.RawMessage // nil when absent
	Code   int             // for Invalid: CodeParseError or CodeInvalidRequest
}

// Parse classifies one message. It never fails: input that is not a
// message is a Message of Kind Invalid.
func Parse(b []byte) Message {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		if _, ok := errors.AsType[*json.SyntaxError](err); ok {
			return Message{Kind: Invalid, Code: CodeParseError}
		}
		return Message{Kind: Invalid, Code: CodeInvalidRequest}
	}
	switch {
	case m.Method != "" && m.ID != nil:
		return Message{Kind: Request, Method: m.Method, ID: compact(m.ID), Params: m.Params}
	case m.Method != "":
		return Message{Kind: Notification, Method: m.Method, Params: m.Params}
	case m.ID != nil && (m.Result != nil || m.Error != nil):
		return Message{Kind: Response, ID: compact(m.ID)}
	}
	return Message{Kind: Invalid, Code: CodeInvalidRequest}
}

// compact keeps an id on one line (ids are scalars, but a client may
// send anything).
func compact(id json.RawMessage) json.RawMessage {
	if !bytes.ContainsAny(id, " \t\r\n") {
		return id
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return id
	}
	return b.Bytes()
}

// Delayed reports whether m is a request whose answer the server delays
// (or hangs on): tools/call.
func Delayed(m Message) bool { return m.Kind == Request && m.Method == "tools/call" }

// Answer returns the server's answer to m, one line of JSON without the
// newline, or nil when m gets none (notifications and responses).
func Answer(m Message) []byte {
	switch m.Kind {
	case Invalid:
		msg := "parse error: not JSON"
		if m.Code == CodeInvalidRequest {
			msg = "invalid request: not a JSON-RPC message"
		}
		return errorAnswer(json.RawMessage("null"), m.Code, msg)
	case Request:
	default:
		return nil
	}
	var result []byte
	switch m.Method {
	case "initialize":
		result = initializeResult(m.Params)
	case "tools/list":
		result = []byte(toolsListResult)
	case "tools/call":
		result = toolsCallResult(m.Params)
	case "ping":
		result = []byte(`{}`)
	default:
		return errorAnswer(m.ID, CodeMethodNotFound, "method not found: "+m.Method)
	}
	b := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(m.ID)+len(result))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, m.ID...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

func errorAnswer(id json.RawMessage, code int, msg string) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, msg)
	return append(b, `}}`...)
}

const toolsListResult = `{"tools":[{"name":"echo","description":"Answers arguments.text (or \"ok\") as text, after the server's -delay.",` +
	`"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}`

func initializeResult(params json.RawMessage) []byte {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p) // a missing or odd version gets the default
	version := DefaultProtocolVersion
	for _, v := range ProtocolVersions {
		if p.ProtocolVersion == v {
			version = v
		}
	}
	return []byte(`{"protocolVersion":"` + version + `","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}`)
}

// toolsCallResult answers any tool with its arguments.text, or "ok" when
// there is no text string.
func toolsCallResult(params json.RawMessage) []byte {
	var p struct {
		Arguments struct {
			Text *string `json:"text"`
		} `json:"arguments"`
	}
	text := "ok"
	if json.Unmarshal(params, &p) == nil && p.Arguments.Text != nil {
		text = *p.Arguments.Text
	}
	b := appendString([]byte(`{"content":[{"type":"text","text":`), text)
	return append(b, `}]}`...)
}

// appendString appends s as a JSON string, "a<b" as "a<b" (as most
// servers write it, not "a\u003cb").
func appendString(dst []byte, s string) []byte {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
