package replay_test

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
)

// unreadAskTape: server-everything over stdio asks roots/list 350 ms after
// initialized, while the client waits for a 2 s tools/call; the recorded
// ask and its client answer come after the call's answer, before any
// notification of the client. cut is where the tape reader stops until
// the test lets it on: right after the call's recorded answer.
const (
	unreadAskHead = `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-11-28T10:00:00Z","protocol_version":"2025-11-25","transport":"stdio"}
{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}}
{"type":"message","seq":1,"t_us":1000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mcp-servers/everything","version":"2.0.0"}}}}
{"type":"message","seq":2,"t_us":2000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"type":"message","seq":3,"t_us":3000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":2,"steps":1}}}}
{"type":"message","seq":4,"t_us":2004000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Long running operation completed. Duration: 2 seconds, Steps: 1."}]}}}
`
	unreadAskRest = `{"type":"message","seq":5,"t_us":2005000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}
{"type":"message","seq":6,"t_us":2006000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///tmp","name":"tmp"}]}}}
{"type":"message","seq":7,"t_us":2007000,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"ping"}}
{"type":"message","seq":8,"t_us":2008000,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{}}}
{"type":"end","messages":9,"duration_us":2008000}
`
)

// gatedTape is a tape whose readers stop at byte cut until open is
// closed: a tape reader that is behind the replay (past the read-ahead).
type gatedTape struct {
	b    []byte
	cut  int64
	open chan struct{}
}

func (g *gatedTape) Name() string { return "gated.jsonl" }

func (g *gatedTape) Open() (io.ReadSeekCloser, error) {
	return &gatedReader{g: g, r: bytes.NewReader(g.b)}, nil
}

type gatedReader struct {
	g *gatedTape
	r *bytes.Reader
}

func (gr *gatedReader) Read(p []byte) (int, error) {
	off := gr.r.Size() - int64(gr.r.Len())
	select {
	case <-gr.g.open:
	default:
		if off >= gr.g.cut {
			<-gr.g.open
		} else if room := gr.g.cut - off; int64(len(p)) > room {
			p = p[:room]
		}
	}
	return gr.r.Read(p)
}

func (gr *gatedReader) Seek(off int64, whence int) (int64, error) { return gr.r.Seek(off, whence) }
func (gr *gatedReader) Close() error                              { return nil }

// logLines is a log writer that tells, once, when a line with one of
// the texts is written.
type logLines struct {
	mu    sync.Mutex
	buf   strings.Builder
	texts []string
	seen  chan string
	once  sync.Once
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for _, s := range l.texts {
		if bytes.Contains(p, []byte(s)) {
			l.once.Do(func() { l.seen <- s })
		}
	}
	return len(p), nil
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestAskNotReadYetAgainstEverything: server-everything asks roots/list
// while the session waits for its 2 s tools/call, and the tape reader has
// not reached the recorded ask (the test holds it until the ask was
// made). The live ask waits for the tape and is answered with the
// client's recorded answer. It used to be refused at once ("the server
// asked something the tape has no answer to"), the recorded answer
// reported as one to an ask refused before the replay reached it.
func TestAskNotReadYetAgainstEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server-everything")
	}
	testserver.NeedEverything(t)
	g := &gatedTape{b: []byte(unreadAskHead + unreadAskRest), cut: int64(len(unreadAskHead)), open: make(chan struct{})}
	var opened sync.Once
	letOn := func() { opened.Do(func() { close(g.open) }) }
	t.Cleanup(letOn)
	logs := &logLines{seen: make(chan string, 1), texts: []string{
		"the tape reader has not reached yet", // waits for the tape
		"the tape has no answer to",           // refused at once
	}}
	argv := testserver.Everything(t)
	r, err := replay.New(g, replay.Against(replay.Command(argv[0], argv[1:]...)), replay.WithSpeed(replay.Fast()),
		replay.AskWait(time.Minute), replay.Timeout(2*time.Minute),
		replay.Ignore("result.capabilities", "result.serverInfo", "result.instructions"),
		replay.Logger(zerolog.New(logs).Level(zerolog.DebugLevel)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	type ran struct {
		rep *report.Report
		err error
	}
	done := make(chan ran, 1)
	go func() {
		rep, err := r.Run(t.Context())
		done <- ran{rep, err}
	}()
	// The condition: the live server has asked, and the replay has
	// handled its ask (the reader is still held). A generous bound
	// against a hang, not a measure of time.
	select {
	case <-logs.seen:
	case res := <-done:
		t.Fatalf("the replay ended before the server asked: %v\n%s", res.err, logs)
	case <-time.After(2 * time.Minute):
		t.Fatalf("the server did not ask within 2 minutes\n%s", logs)
	}
	letOn()
	res := <-done
	if res.err != nil || res.rep == nil {
		t.Fatalf("run: %v\n%s", res.err, logs)
	}
	answered, refused := res.rep.Summary.Server.RequestsAnswered, res.rep.Summary.Server.RequestsRefused
	if answered != 1 || refused != 0 || !res.rep.Passed() {
		t.Fatalf("server requests answered %d, refused %d, passed %v; want the live roots/list answered from the tape, none refused, the run passed\n%s",
			answered, refused, res.rep.Passed(), logs)
	}
}
