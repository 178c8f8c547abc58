package record

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/tape"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(serverEnv); name != "" {
		os.Exit(runTestServer(name))
	}
	goleak.VerifyTestMain(m)
}

// TestScriptRecordsBothDirections records a conversation from the mock
// of the example tape and reads the new tape back.
func TestScriptRecordsBothDirections(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := mock.New("../examples/quickstart.jsonl").Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	w, err := tape.Create(path, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion})
	if err != nil {
		t.Fatal(err)
	}
	msgs := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"example-client","version":"1.0.0"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		[]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":15,"b":27}}}`),
	}
	if err := Script(ctx, conn, "s1", msgs, w, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := tape.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := []struct {
		dir  tape.Dir
		part string
	}{
		{tape.C2S, `"initialize"`}, {tape.S2C, `"protocolVersion":"2025-06-18"`},
		{tape.C2S, `notifications/initialized`},
		{tape.C2S, `"id":7`}, {tape.S2C, `notifications/message`}, {tape.S2C, `The sum of 15 and 27 is 42.`},
	}
	var last int64
	for i, w := range want {
		m, err := r.Next()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if m.Seq != int64(i) || m.Dir != w.dir || !bytes.Contains(m.Msg, []byte(w.part)) || m.TUS < last {
			t.Errorf("message %d: seq %d %s %s at %dµs; want seq %d %s containing %s, time not going back", i, m.Seq, m.Dir, m.Msg, m.TUS, i, w.dir, w.part)
		}
		last = m.TUS
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last message: %v, want EOF", err)
	}
}

func TestScriptOnClosedConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := mock.New("../examples/quickstart.jsonl").Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w, err := tape.NewWriter(io.Discard, tape.Header{Format: tape.FormatName, Version: tape.FormatVersion})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	err = Script(ctx, conn, "s1", [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, w, 200*time.Millisecond)
	if err == nil {
		t.Fatal("Script on a closed connection: no error")
	}
}
