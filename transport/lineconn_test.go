package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestLineConnRead reads lines over an OS pipe: the message without its
// end, the raw bytes with it, a last line without "\n", and a line over
// the limit, which ends the reading for good.
func TestLineConnRead(t *testing.T) {
	in := "{\"a\": 1}\n{ \"b\":2 }\r\n\nnot json\n" + strings.Repeat("x", 40) + "\n"
	tests := []struct {
		name  string
		input string
		limit int
		want  []string // raw lines, %q
		err   string   // the error after them
	}{
		{"lines", in, 0, []string{"{\"a\": 1}\n", "{ \"b\":2 }\r\n", "\n", "not json\n", strings.Repeat("x", 40) + "\n"}, "EOF"},
		{"last without newline", `{"x":1}` + "\n" + `{"y":2}`, 0, []string{"{\"x\":1}\n", `{"y":2}`}, "EOF"},
		{"too long", in, 30, []string{"{\"a\": 1}\n", "{ \"b\":2 }\r\n", "\n", "not json\n"}, "longer than the limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = io.WriteString(w, tc.input); w.Close() }()
			c := NewLineConn(r, nil, LineMaxMessage(tc.limit), LineName("the client's input"))
			defer c.Close()
			var got []string
			var last error
			for {
				msg, raw, err := c.ReadLine()
				if len(raw) > 0 {
					got = append(got, string(raw))
					if want := strings.TrimSuffix(strings.TrimSuffix(string(raw), "\n"), "\r"); string(msg) != want {
						t.Errorf("msg %q of raw %q, want %q", msg, raw, want)
					}
				}
				if err != nil {
					last = err
					break
				}
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("got lines %q, want %q", got, tc.want)
			}
			if last == nil || !strings.Contains(last.Error(), tc.err) {
				t.Errorf("got error %v, want one containing %q", last, tc.err)
			}
			var tl *TooLargeError
			if errors.As(last, &tl) {
				if !strings.Contains(last.Error(), "the client's input") {
					t.Errorf("error %q does not name the input", last)
				}
				if _, _, err := c.ReadLine(); !errors.As(err, &tl) {
					t.Errorf("ReadLine after a line too long: %v, want the same error", err)
				}
			}
		})
	}
}

// TestLineConnConcurrentWrites writes from many goroutines at once: every
// line arrives whole.
func TestLineConnConcurrentWrites(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := NewLineConn(nil, w)
	const writers, each = 8, 200
	lines := make(chan string, writers*each)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pad := strings.Repeat("p", 1000*(g+1)) // lines longer than a pipe's atomic write
			for i := range each {
				var err error
				if i%2 == 0 {
					err = c.WriteLine(fmt.Appendf(nil, `{"g":%d,"i":%d,"pad":%q}`, g, i, pad))
				} else {
					err = c.WriteRaw(fmt.Appendf(nil, "{\"g\":%d,\"i\":%d,\"pad\":%q}\n", g, i, pad))
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	c.Close()
	<-done
	r.Close()
	seen := map[string]bool{}
	for l := range lines {
		var g, i int
		var pad string
		if _, err := fmt.Sscanf(l, `{"g":%d,"i":%d,"pad":%q}`, &g, &i, &pad); err != nil || len(pad) != 1000*(g+1) {
			t.Fatalf("torn line %.80q…: %v", l, err)
		}
		seen[fmt.Sprint(g, i)] = true
	}
	if len(seen) != writers*each {
		t.Errorf("got %d distinct lines, want %d", len(seen), writers*each)
	}
	if err := c.WriteLine([]byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteLine after Close: %v, want ErrClosed", err)
	}
}

// TestLineConnCloseUnblocks: Close ends a ReadLine waiting on a pipe.
func TestLineConnCloseUnblocks(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := NewLineConn(r, nil)
	res := make(chan error, 1)
	go func() { _, _, err := c.ReadLine(); res <- err }()
	c.Close()
	if err := <-res; !errors.Is(err, ErrClosed) {
		t.Errorf("ReadLine ended by Close: %v, want ErrClosed", err)
	}
}
