package mock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/replayctl/replayctl/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testTape = `{"type":"header","format":"replayctl-tape","version":1}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}}
{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"sum":3}}}
{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}}
{"type":"message","seq":3,"t_us":30,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"sum":"three"}}}
{"type":"message","seq":4,"t_us":40,"session":"s2","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"type":"message","seq":5,"t_us":50,"session":"s2","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"from":"s2"}}}
{"type":"message","seq":6,"t_us":60,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"ping"}}
{"type":"message","seq":7,"t_us":70,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"busy"}}}
`

func TestAnswersByMethodAndParamsInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(testTape), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		session, send, want string
	}{
		// Same method and params twice: the recorded answers in order,
		// params matched whatever their key order and spacing.
		{"s1", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"arguments":{"b":2, "a":1},"name":"add"}}`, `{"jsonrpc":"2.0","id":"a","result":{"sum":3}}`},
		{"s1", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, `{"jsonrpc":"2.0","id":7,"result":{"sum":"three"}}`},
		// A request asked out of recorded order is found further on.
		{"s1", `{"jsonrpc":"2.0","id":8,"method":"ping"}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32000,"message":"busy"}}`},
		// Each session answers as its own recording.
		{"s2", `{"jsonrpc":"2.0","id":9,"method":"ping"}`, `{"jsonrpc":"2.0","id":9,"result":{"from":"s2"}}`},
		// Nothing recorded: a JSON-RPC error that says so.
		{"s1", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"add","arguments":{"a":5}}}`, `"code":-32601`},
	}
	m := New(path)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conns := map[string]transport.Conn{}
	for i, st := range steps {
		c, ok := conns[st.session]
		if !ok {
			var err error
			if c, err = m.Dial(ctx, st.session); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conns[st.session] = c
		}
		if err := c.Send(ctx, []byte(st.send)); err != nil {
			t.Fatal(err)
		}
		// A notification gets no answer.
		if err := c.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
			t.Fatal(err)
		}
		select {
		case in := <-c.Incoming():
			if got := string(in.Msg); got != st.want && !(strings.HasPrefix(st.want, `"`) && strings.Contains(got, st.want)) {
				t.Errorf("step %d: got %s, want %s", i, got, st.want)
			}
		case <-ctx.Done():
			t.Fatalf("step %d: no answer", i)
		}
	}
	for _, c := range conns {
		select {
		case in, ok := <-c.Incoming():
			if ok {
				t.Errorf("unexpected extra answer %s", in.Msg)
			}
		default:
		}
	}
}

func TestManyAnswersQueueWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"replayctl-tape","version":1}` + "\n")
	const n = 2000
	for i := range n {
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"ping"}}`+"\n", 2*i, 2*i, i)
		fmt.Fprintf(&b, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}}`+"\n", 2*i+1, 2*i+1, i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := New(path).Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Far more requests than the answer channel holds, none read yet:
	// Send must not block, and answers come out in order.
	for i := range n {
		if err := c.Send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 1000+i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		in := <-c.Incoming()
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"n":%d}}`, 1000+i, i); string(in.Msg) != want {
			t.Fatalf("answer %d: got %s, want %s", i, in.Msg, want)
		}
	}
}

func TestRewindAnswersAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(testTape), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := New(path).Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ask := func(id int) string {
		t.Helper()
		if err := c.Send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, id)); err != nil {
			t.Fatal(err)
		}
		return string((<-c.Incoming()).Msg)
	}
	first, second := ask(1), ask(2)
	if !strings.Contains(first, `"sum":3`) || !strings.Contains(second, `"three"`) {
		t.Fatalf("answers %s, %s; want the two recorded ones in order", first, second)
	}
	// Back to seq 2 (the second recorded call): its answer again.
	if err := c.(transport.Rewinder).Rewind(2); err != nil {
		t.Fatal(err)
	}
	if got := ask(3); !strings.Contains(got, `"three"`) {
		t.Errorf("after rewind to seq 2: %s, want the second recorded answer", got)
	}
	if err := c.(transport.Rewinder).Rewind(0); err != nil {
		t.Fatal(err)
	}
	if got := ask(4); !strings.Contains(got, `"sum":3`) {
		t.Errorf("after rewind to seq 0: %s, want the first recorded answer", got)
	}
}
