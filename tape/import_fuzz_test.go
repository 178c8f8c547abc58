package tape

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/jsonrpc"
)

// FuzzDecodeHAR: any input is imported or refused with an *Error, never
// a panic; what is imported is numbered in order with valid messages.
func FuzzDecodeHAR(f *testing.F) {
	f.Add([]byte(har(entry("2026-05-01T10:00:00Z", "POST", "http://h/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, "", "text/event-stream", "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n", ""))))
	f.Add([]byte(`{"log":{"entries":[{"startedDateTime":"2026-05-01T10:00:00Z","request":{"method":"GET","url":"u"},"response":{"content":{"mimeType":"text/event-stream","text":"ZGF0YTogMQoK","encoding":"base64"}}}]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, msgs, _, err := DecodeHAR("f.har", doc)
		checkImport(t, msgs, err)
	})
}

// FuzzDecodeLog: as FuzzDecodeHAR, for JSON-RPC logs.
func FuzzDecodeLog(f *testing.F) {
	f.Add([]byte(wrapperLog))
	f.Add([]byte("[2026-05-01T10:00:00Z] --> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n<-- {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, msgs, _, err := DecodeLog("f.log", doc)
		checkImport(t, msgs, err)
	})
}

func checkImport(t *testing.T, msgs []Message, err error) {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T), want *Error", err, err)
		}
		return
	}
	var prev int64
	for i, m := range msgs {
		if m.Seq != int64(i) || m.TUS < prev || (m.Dir != C2S && m.Dir != S2C) || m.Session == "" {
			t.Fatalf("message %d: %+v", i, m)
		}
		prev = m.TUS
		if len(m.Msg) == 0 || (m.Msg[0] != '{' && m.Msg[0] != '[') {
			t.Fatalf("message %d: %q", i, m.Msg)
		}
	}
}

// FuzzOpenPeers: the files of the other MCP recorders (mcp-cassette,
// mcp-recorder, mcp-vcr), as Open detects and imports them: imported or
// refused with an *Error, never a panic.
func FuzzOpenPeers(f *testing.F) {
	for _, name := range []string{"cassette-stdio.json", "cassette-http.json", "recorder-http.json", "recorder-stdio.json", "mcpvcr-stdio.yaml"} {
		b, err := os.ReadFile(peerFixtures + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("meta: {version: 1}\nmessages:\n  - {t: 0, dir: c2s, payload: {jsonrpc: \"2.0\", id: 0x1F, method: ping}}\n"))
	f.Add([]byte(`{"version":"1.0","interactions":[{"type":"jsonrpc_request","request":{"jsonrpc":"2.0","id":1,"method":"ping"}}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r, err := NewReader("f", bytes.NewReader(doc))
		if err != nil {
			checkImport(t, nil, err)
			return
		}
		defer r.Close()
		var msgs []Message
		for {
			m, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				checkImport(t, nil, err)
				return
			}
			msgs = append(msgs, m)
		}
		if r.Format() == FormatNative || r.Format() == FormatLog {
			return // read as they are: checked by their own fuzz targets
		}
		checkImport(t, msgs, nil)
	})
}

// FuzzScanEnvelopeValid: detection's one pass over a first line
// (scanEnvelopeValid) succeeds exactly on a valid JSON object, and then
// finds the envelope scanEnvelope finds, its message parsed the same;
// so oneLineDoc's grammar check needs no pass of its own.
func FuzzScanEnvelopeValid(f *testing.F) {
	for _, s := range []string{
		`{"type":"header","format":"replayctl-tape","version":1}`,
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`,
		`{"msg":{"jsonrpc":"2.0","id":1,"method":"ping"},"msg":3}`,
		`{"msg":{"jsonrpc":"2.0","id":1},"msg":{"jsonrpc":"2.0","method":"x"},"x\u0079z":[1,{"a":null}]}`,
		` {"format_version": "1.0.0", "session": {"interactions": []}} ` + "\r",
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"ts":"2026-05-01T10:00:00Z","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}`,
		`{"type":"header"`, `{"a":1,}`, `[1,2]`, `{"msg":{"id":1,}}`, `{"\ud800":1}`, "{\"a\":\"\xff\"}", `{} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got, want envelope
		err := scanEnvelopeValid(line, &got)
		i := jsonscan.SkipSpace(line, 0)
		validObject := jsonscan.Valid(line) && i < len(line) && line[i] == '{'
		if (err == nil) != validObject {
			t.Fatalf("scanEnvelopeValid(%q): %v; valid JSON object %v", line, err, validObject)
		}
		if err != nil {
			return
		}
		if err := scanEnvelope(line, &want); err != nil {
			t.Fatalf("scanEnvelope(%q) of a valid object: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanEnvelopeValid(%q):\n%+v\nwant scanEnvelope's\n%+v", line, got, want)
		}
	})
}

// FuzzIsInitialized: a cassette's request is notifications/initialized
// exactly when its "method" member says so, as written (what pick alone
// decided, for every request, before the parse let it skip the others).
func FuzzIsInitialized(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`,
		`{"method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications\/initialized"}`,
		`{"jsonrpc":"2.0","method":"tools/list","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"method":"notifications/initialized"}}`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		rpc, err := jsonrpc.Parse(msg)
		if err != nil {
			rpc = jsonrpc.Message{Kind: jsonrpc.KindInvalid}
		}
		want := string(pick(msg, "method")) == `"notifications/initialized"`
		if got := isInitialized(rpc, msg); got != want {
			t.Fatalf("isInitialized(%q) = %v, want %v (its method member as written)", msg, got, want)
		}
	})
}
