package mock

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/replayctl/replayctl/transport"
)

func TestRegressionRewindFailThenClosePanics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(`{"type":"header","format":"replayctl-tape","version":1,"transport":"stdio"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}
`), 0o644)
	c, err := New(path).Dial(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	t.Log("rewind:", c.(transport.Rewinder).Rewind(0))
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("Close after a failed Rewind panics: %v", r)
		}
	}()
	c.Close()
}
