package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestHTTPSendSlow: the body arrives whole, in more than one read, and
// the answer comes back as from Send.
func TestHTTPSendSlow(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"0123456789"}}`)
	got := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		got <- b
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := HTTP{URL: srv.URL}.Dial(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.(SlowSender).SendSlow(ctx, msg, 7, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if b := <-got; string(b) != string(msg) {
		t.Errorf("server read %q, want %q", b, msg)
	}
	select {
	case in := <-c.Incoming():
		if string(in.Msg) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Errorf("answer %s", in.Msg)
		}
	case <-ctx.Done():
		t.Fatal("no answer")
	}
}

// The trickle hands out chunk bytes per read.
func TestTrickle(t *testing.T) {
	tr := &trickle{ctx: context.Background(), rest: []byte("abcdefghij"), chunk: 4}
	var reads []string
	buf := make([]byte, 100)
	for {
		n, err := tr.Read(buf)
		if err == io.EOF {
			break
		}
		reads = append(reads, string(buf[:n]))
	}
	if len(reads) != 3 || reads[0] != "abcd" || reads[2] != "ij" {
		t.Errorf("reads %q, want abcd efgh ij", reads)
	}
}
