package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver"
	"github.com/replayctl/replayctl/replay"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/validator"
)

const everythingTape = "../examples/everything.jsonl"

// readTape reads every message of the tape at path.
func readTape(t *testing.T, path string) (tape.Header, []tape.Message) {
	t.Helper()
	r, err := tape.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Close()
	var msgs []tape.Message
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		m.Msg = slices.Clone(m.Msg)
		msgs = append(msgs, m)
	}
	if r.End() == nil {
		t.Errorf("%s has no end line", path)
	}
	return r.Header(), msgs
}

// clientFlow is what the client sent, session by session: each c2s
// message's session and method (or "response" for an answer).
func clientFlow(t *testing.T, msgs []tape.Message) []string {
	t.Helper()
	var flow []string
	for _, m := range msgs {
		if m.Dir != tape.C2S {
			continue
		}
		var v struct {
			Method string `json:"method"`
		}
		if err := json.Unmarshal(m.Msg, &v); err != nil {
			t.Fatalf("seq %d: %v", m.Seq, err)
		}
		if v.Method == "" {
			v.Method = "response"
		}
		flow = append(flow, m.Session+" "+v.Method)
	}
	return flow
}

// mustPass fails the test unless the replay went to its end with every
// answer as recorded.
func mustPass(t *testing.T, what string, rep *report.Report, err error) {
	t.Helper()
	if err != nil || rep == nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !rep.Passed() || rep.Validation.Failed != 0 {
		t.Fatalf("%s: not clean: %+v\n%v", what, rep.Validation, rep.Summary.Aborted)
	}
}

// TestRerecordEverything re-records the example tape of server-everything
// against server-everything itself: the new tape has the same sessions
// and client messages in the same order, the server's own answers with
// new times, and replays against the server clean.
func TestRerecordEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server-everything")
	}
	testserver.NeedEverything(t)
	argv := testserver.Everything(t)
	out := filepath.Join(t.TempDir(), "refreshed.jsonl")
	against := replay.Against(replay.Command(argv[0], argv[1:]...))
	rep, err := replay.Run(t.Context(), everythingTape, against, replay.WithSpeed(replay.Fast()), replay.Rerecord(out))
	mustPass(t, "re-record", rep, err)

	_, old := readTape(t, everythingTape)
	h, fresh := readTape(t, out)
	if got, want := clientFlow(t, fresh), clientFlow(t, old); !slices.Equal(got, want) {
		t.Errorf("client messages of the new tape:\n%v\nwant those of the old one:\n%v", got, want)
	}
	if h.Transport != "stdio" || h.Server == nil || !slices.Equal(h.Server.Command, argv) {
		t.Errorf("header %+v: want stdio and the command %v", h, argv)
	}
	if h.ProtocolVersion != "2025-06-18" {
		t.Errorf("protocol version %q, want the one agreed, 2025-06-18", h.ProtocolVersion)
	}
	for i := 1; i < len(fresh); i++ {
		if fresh[i].TUS < fresh[i-1].TUS || fresh[i].Seq != int64(i) {
			t.Fatalf("seq %d at %dµs after seq %d at %dµs: want seqs in order and times that never go back", fresh[i].Seq, fresh[i].TUS, fresh[i-1].Seq, fresh[i-1].TUS)
		}
	}

	rep, err = replay.Run(t.Context(), out, against, replay.WithSpeed(replay.Fast()))
	mustPass(t, "replay of the new tape", rep, err)
	if rep.Validation.Checked != 28 {
		t.Errorf("%d answers checked, want the 28 of the old tape", rep.Validation.Checked)
	}
}

// sumServer runs testserver.Sum of a version on the streams a
// replay.Streams target gives it.
func sumServer(version int) func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	return func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		return testserver.Sum(version).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	}
}

// TestRerecordChangedServer re-records a tape of version 1 of a server
// against version 2, whose get-sum answers differently over 10: the new
// tape differs from the old exactly in those answers, and replays clean
// against version 2.
func TestRerecordChangedServer(t *testing.T) {
	dir := t.TempDir()
	v1, v2 := replay.Against(replay.Streams(sumServer(1))), replay.Against(replay.Streams(sumServer(2)))
	// What the Node server said of itself is not the Go server's.
	describe := replay.Ignore("result.serverInfo", "result.capabilities", "result.instructions", "result.tools", "result.prompts", "result.cacheScope", "result.ttlMs")
	before := filepath.Join(dir, "v1.jsonl")
	rep, err := replay.Run(t.Context(), everythingTape, v1, describe, replay.WithSpeed(replay.Fast()), replay.Rerecord(before))
	mustPass(t, "record of version 1", rep, err)
	rep, err = replay.Run(t.Context(), before, v1, replay.WithSpeed(replay.Fast()))
	mustPass(t, "version 1's tape against version 1", rep, err)

	after := filepath.Join(dir, "v2.jsonl")
	rep, err = replay.Run(t.Context(), before, v2, replay.WithSpeed(replay.Fast()), replay.Rerecord(after))
	if err != nil || rep == nil {
		t.Fatalf("re-record against version 2: %v", err)
	}
	if rep.Validation.Failed != 8 {
		t.Errorf("re-record against version 2: %d failed, want the 8 sums over 10", rep.Validation.Failed)
	}

	_, old := readTape(t, before)
	_, fresh := readTape(t, after)
	if len(fresh) != len(old) {
		t.Fatalf("%d messages re-recorded, want %d", len(fresh), len(old))
	}
	v, err := validator.New()
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for i := range old {
		if old[i].Session != fresh[i].Session || old[i].Dir != fresh[i].Dir {
			t.Errorf("seq %d: session %s %s, want %s %s as before", i, fresh[i].Session, fresh[i].Dir, old[i].Session, old[i].Dir)
		}
		diffs, err := v.Compare(old[i].Msg, fresh[i].Msg)
		if err != nil {
			t.Fatalf("seq %d: %v", i, err)
		}
		for _, d := range diffs {
			changed = append(changed, fmt.Sprintf("seq %d %s: %s → %s", i, d.Path, d.Expected, d.Actual))
		}
	}
	want := []string{}
	for _, s := range [][3]int{{4, 8, 12}, {5, 10, 15}, {6, 12, 18}, {7, 14, 21}, {8, 16, 24}, {9, 18, 27}, {10, 20, 30}, {11, 22, 33}} {
		want = append(want, fmt.Sprintf(`result.content[0].text: "The sum of %d and %d is %d." → "The sum of %d and %d is %d."`, s[0], s[1], s[2], s[0], s[1], s[2]+1))
	}
	var got []string
	for _, c := range changed {
		_, rest, _ := strings.Cut(c, " ")
		_, rest, _ = strings.Cut(rest, " ")
		got = append(got, rest)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the new tape differs from the old in:\n%s\nwant exactly the sums over 10:\n%s", strings.Join(changed, "\n"), strings.Join(want, "\n"))
	}

	rep, err = replay.Run(t.Context(), after, v2, replay.WithSpeed(replay.Fast()))
	mustPass(t, "the new tape against version 2", rep, err)
	rep, err = replay.Run(t.Context(), after, v1, replay.WithSpeed(replay.Fast()))
	if err != nil || rep == nil || rep.Validation.Failed != 8 {
		t.Errorf("the new tape against version 1: %v, %+v; want the 8 sums failed", err, rep.Validation)
	}
}

// A replay that stops early (the target died) leaves the path as it was
// and no temporary file beside it; the report says the tape was not
// written.
func TestRerecordStoppedEarlyWritesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	const before = "the tape as it was\n"
	if err := os.WriteFile(out, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Rerecord(out),
		replay.Against(replay.Command("sh", "-c", "read line; exit 3")))
	if err == nil || rep == nil || rep.ExitStatus() != report.ExitTarget {
		t.Fatalf("Run: %v; want the target's failure", err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != before {
		t.Errorf("%s: %q, %v; want it untouched", out, b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %v; want only %s", entries, out)
	}
	if !slices.ContainsFunc(rep.Summary.Warnings, func(w string) bool { return strings.Contains(w, out+" not written") }) {
		t.Errorf("warnings %q: want one saying %s was not written", rep.Summary.Warnings, out)
	}
}

// With several virtual sessions only the first copy of each recorded
// session is recorded, under the recorded name.
func TestRerecordSessionsKeepsFirstCopy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.jsonl")
	rep, err := replay.Run(t.Context(), quickstart, replay.WithSpeed(replay.Fast()), replay.Sessions(3), replay.Rerecord(out))
	mustPass(t, "re-record of 3 sessions", rep, err)
	_, old := readTape(t, quickstart)
	_, fresh := readTape(t, out)
	if got, want := clientFlow(t, fresh), clientFlow(t, old); !slices.Equal(got, want) {
		t.Errorf("client messages of the new tape:\n%v\nwant those of the old one once:\n%v", got, want)
	}
	if len(fresh) != len(old) {
		t.Errorf("%d messages, want %d", len(fresh), len(old))
	}
}

// Secrets are taken out of the new tape as record does: the default key
// globs, and the globs given.
func TestRerecordRedacts(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := []string{
		`{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio"}`,
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`,
		`{"type":"message","seq":1,"t_us":10,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}`,
		`{"type":"message","seq":2,"t_us":20,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
		`{"type":"message","seq":3,"t_us":30,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2-hunter2","shoe_size":"44-wide"}}}}`,
		`{"type":"message","seq":4,"t_us":40,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"access_token":"tok-123456789"}}}`,
		`{"type":"end","messages":5,"duration_us":40}`,
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	r, err := replay.New(tape.File(in), replay.WithSpeed(replay.Fast()), replay.Rerecord(out, tape.RedactKeys("shoe_*")))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(t.Context())
	mustPass(t, "re-record", rep, err)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2", "44-wide", "tok-123456789"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the new tape holds %q:\n%s", secret, b)
		}
	}
	written, n, counts := r.Rerecorded()
	if !written || n != 5 || counts.Total() != 3 {
		t.Errorf("Rerecorded: %d messages, %d values redacted (%+v); want 5 and 3", n, counts.Total(), counts)
	}
}

func TestRerecordRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	for _, c := range []struct {
		name string
		opts []replay.Option
		want string
	}{
		{"chaos", []replay.Option{replay.Rerecord(out), replay.Chaos("drop=0.5")}, "chaos"},
		{"shard", []replay.Option{replay.Rerecord(out), replay.Shard(0, 2)}, "shard"},
		{"empty", []replay.Option{replay.Rerecord("")}, "want the path"},
		{"no folder", []replay.Option{replay.Rerecord(filepath.Join(dir, "nope", "out.jsonl"))}, "does not exist"},
		{"a folder", []replay.Option{replay.Rerecord(dir)}, "a folder"},
		{"bad glob", []replay.Option{replay.Rerecord(out, tape.RedactKeys("*"))}, "glob"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := replay.New(tape.File(quickstart), c.opts...)
			var oe *replay.OptionError
			if !errors.As(err, &oe) || oe.Option != "Rerecord" || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New: %v; want an *OptionError of Rerecord saying %q", err, c.want)
			}
		})
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v; want nothing written", out, err)
	}
}
