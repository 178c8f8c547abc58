package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordLeft: what a second signal's exit does to the tape on disk
// and says of it, read in one pass: a tape with nothing of the server's
// is removed (over HTTP, only if it holds a client's message or the
// upstream was down), any other is kept, with or without its end line.
func TestRecordLeft(t *testing.T) {
	const (
		versioned = `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-11-25","transport":"stdio"}` + "\n"
		unversion = `{"type":"header","format":"replayctl-tape","version":1,"transport":"streamable-http"}` + "\n"
		c2s       = `{"type":"message","seq":0,"t_us":1,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"
		s2c       = `{"type":"message","seq":1,"t_us":2,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n"
		cut       = `{"type":"message","seq":1,"t_us":2,"ses`
		end1      = `{"type":"end","messages":1,"duration_us":3}` + "\n"
		end2      = `{"type":"end","messages":2,"duration_us":3}` + "\n"
		none      = "nothing of the server's was recorded, so no tape was written"
		ended     = " holds what was recorded, with its end line"
		unended   = " keeps what was recorded so far, without its end line"
	)
	for _, tc := range []struct {
		name                   string
		tape                   string
		overHTTP, upstreamDown bool
		want                   string // "" none; else the tape's words
		kept                   bool
	}{
		{name: "empty file", tape: "", want: none},
		{name: "version, whole", tape: versioned + c2s + s2c + end2, want: ended, kept: true},
		{name: "version, cut", tape: versioned + c2s + cut, want: unended, kept: true},
		{name: "answer, no version", tape: unversion + c2s + s2c + end2, overHTTP: true, want: ended, kept: true},
		{name: "client only, then a cut line", tape: unversion + c2s + cut, overHTTP: true, want: none},
		{name: "client only, stdio", tape: unversion + c2s + end1, want: none},
		{name: "client only, http", tape: unversion + c2s + end1, overHTTP: true, want: none},
		{name: "nothing, http, upstream up", tape: unversion + `{"type":"end","messages":0,"duration_us":3}` + "\n", overHTTP: true, want: ended, kept: true},
		{name: "nothing, http, upstream down", tape: unversion + `{"type":"end","messages":0,"duration_us":3}` + "\n", overHTTP: true, upstreamDown: true, want: none},
		{name: "not a tape", tape: "hello\n", want: unended, kept: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rec.jsonl")
			if err := os.WriteFile(path, []byte(tc.tape), 0o644); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if tc.kept {
				want = path + tc.want
			}
			if got := recordLeft(path, tc.overHTTP, tc.upstreamDown); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			_, err := os.Stat(path)
			if kept := err == nil; kept != tc.kept {
				t.Errorf("tape kept %v, want %v", kept, tc.kept)
			}
		})
	}
	if got := recordLeft(filepath.Join(t.TempDir(), "none.jsonl"), false, false); !strings.Contains(got, "no tape was written") {
		t.Errorf("no file: got %q, want it to say no tape was written", got)
	}
}
