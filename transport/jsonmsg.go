package transport

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// msgInfo is what the HTTP transport needs to know of a message.
type msgInfo struct {
	method string // "" for a response or a batch
	id     []byte // raw id bytes, nil when absent
	result []byte // raw result, nil when absent
	error  []byte // raw error, nil when absent
}

// inspect reads the top-level members method, id and result of a
// JSON-RPC message. A batch (array) or non-object yields a zero msgInfo.
func inspect(msg []byte) msgInfo {
	var mi msgInfo
	_ = jsonscan.Members(msg, func(m jsonscan.Member) bool {
		v := msg[m.Start:m.End]
		switch string(m.Key) {
		case "method":
			if s, ok := jsonrpc.KnownMethod(v); ok {
				mi.method = s
				break
			}
			var s string
			if json.Unmarshal(v, &s) == nil {
				mi.method = s
			}
		case "id":
			if !bytes.Equal(v, []byte("null")) {
				mi.id = v
			}
		case "result":
			mi.result = v
		case "error":
			mi.error = v
		}
		return true
	})
	return mi
}

// protocolVersion is result.protocolVersion of an initialize answer, or "".
func protocolVersion(result []byte) string {
	var pv string
	_ = jsonscan.Members(result, func(m jsonscan.Member) bool {
		if string(m.Key) == "protocolVersion" {
			_ = json.Unmarshal(result[m.Start:m.End], &pv)
			return false
		}
		return true
	})
	return pv
}

var errNotJSON = errors.New("body is not JSON")

// splitBody returns the messages of an application/json body: the
// object itself, or each element of a batch array. Slices alias body.
func splitBody(body []byte) ([][]byte, error) { return appendMessages(nil, body) }

// appendMessages is splitBody appending to out.
func appendMessages(out [][]byte, body []byte) ([][]byte, error) {
	body = bytes.TrimSpace(body)
	if !jsonscan.Valid(body) { // json.Valid's verdict, at several times its speed
		return nil, errNotJSON
	}
	if len(body) == 0 || body[0] != '[' {
		return append(out, body), nil
	}
	i := jsonscan.SkipSpace(body, 1)
	for i < len(body) && body[i] != ']' {
		end, err := jsonscan.SkipValue(body, i)
		if err != nil {
			return nil, err
		}
		out = append(out, body[i:end])
		i = jsonscan.SkipSpace(body, end)
		if i < len(body) && body[i] == ',' {
			i = jsonscan.SkipSpace(body, i+1)
		}
	}
	return out, nil
}
