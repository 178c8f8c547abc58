//go:build unix

package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/record"
)

// TestRecordLeftAtOnceTrue: what a second signal says is on disk is
// true however the first signal's ordinary stop (which renames the new
// recording over the tape with --force, or writes its end line)
// interleaves with it: run to its end before the second signal reads
// which file holds the recording, between that read and the look at
// the file (the hook leftRead), or after the words are said (the
// process exits then, but nothing of the recording may change the disk
// meanwhile).
func TestRecordLeftAtOnceTrue(t *testing.T) {
	upstream := fakeUpstream(t, bigAnswer) // it answers initialize
	for _, when := range []string{"before the read", "between the read and the look", "after the words"} {
		t.Run(when, func(t *testing.T) {
			path := writeOldTape(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			exchanged := make(chan struct{})
			r, err := record.New(path, record.Overwrite(), record.Upstream(upstream), record.Listen("127.0.0.1:0"),
				record.OnListening(func(_ net.Addr, url string) {
					defer close(exchanged)
					resp, err := http.Post(url, "application/json", strings.NewReader(initializeLine))
					if err != nil {
						t.Errorf("post: %v", err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}))
			if err != nil {
				t.Fatal(err)
			}
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				_, _ = r.Run(ctx)
			}()
			<-exchanged
			stop := func() { cancel(); <-ran } // the first signal's stop, to its end
			f := &recordFlags{out: path, force: true, unlock: func() {}}
			f.rec = r
			defer func(h func()) { leftRead = h }(leftRead)
			switch when {
			case "before the read":
				stop()
			case "between the read and the look":
				leftRead = stop
			}
			words := f.leftAtOnce(true, false)
			stop()
			checkLeftTrue(t, words, path, oldTape)
		})
	}
}

// checkLeftTrue fails t unless words (leftAtOnce's) say what is on
// disk: the tape as it was (old) or not, and the file named holding
// what it is said to hold.
func checkLeftTrue(t *testing.T, words, path, old string) {
	t.Helper()
	got, _ := os.ReadFile(path)
	asWas := strings.HasPrefix(words, path+" is as it was")
	if asWas != (string(got) == old) {
		t.Errorf("said %q, but %s holds %q", words, path, got)
	}
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	var beside []string
	for _, n := range names {
		if n != path {
			beside = append(beside, n)
		}
	}
	said := func(what string) string { // the file words say holds what
		i := strings.Index(words, what)
		if i < 0 {
			return ""
		}
		head := words[:i]
		if j := strings.LastIndex(head, "; "); j >= 0 {
			head = head[j+2:]
		}
		return head
	}
	switch {
	case strings.Contains(words, "no tape was written"):
		if len(beside) > 0 || !asWas && len(got) > 0 {
			t.Errorf("said %q, but the folder holds %q", words, names)
		}
	case said(" holds what was recorded, with its end line") != "":
		file := said(" holds what was recorded, with its end line")
		if tp := readTapeOnDisk(file, true); !tp.ended || tp.messages == 0 {
			t.Errorf("said %q, but %s holds %+v", words, file, tp)
		}
	case said(" keeps what was recorded so far, without its end line") != "":
		file := said(" keeps what was recorded so far, without its end line")
		if _, err := os.Stat(file); err != nil {
			t.Errorf("said %q, but %v", words, err)
		} else if tp := readTapeOnDisk(file, true); tp.ended {
			t.Errorf("said %q, but %s has its end line", words, file)
		}
	default:
		t.Errorf("said %q: no words on a file", words)
	}
}
