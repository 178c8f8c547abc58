package slowmcp

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`

// readUpTo reads r until it ends or n bytes are read, and returns how many
// bytes it read and whether one was a newline.
func readUpTo(t *testing.T, r io.Reader, n int64) (int64, bool) {
	t.Helper()
	var got int64
	newline := false
	buf := make([]byte, 64<<10)
	for got < n {
		k, err := r.Read(buf)
		got += int64(k)
		newline = newline || strings.ContainsRune(string(buf[:k]), '\n')
		if err != nil {
			break
		}
	}
	return got, newline
}

func TestHugeAnswers(t *testing.T) {
	const enough = 20 << 20 // past replayctl's default limit
	for _, tc := range []struct {
		hang        Hang
		contentType string
	}{{HangEndless, "application/json"}, {HangGzipBomb, "application/json"}, {HangSSEEndless, "text/event-stream"}} {
		t.Run(string(tc.hang), func(t *testing.T) {
			url, client := newServer(t, Handler(WithHang(tc.hang)))
			resp, err := client.Post(url, "application/json", strings.NewReader(call))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.Header.Get("Content-Type") != tc.contentType {
				t.Errorf("content type %q, want %q", resp.Header.Get("Content-Type"), tc.contentType)
			}
			// The client unpacks the gzip bomb: the body reads as far.
			if got, nl := readUpTo(t, resp.Body, enough); got < enough || nl {
				t.Errorf("read %d bytes (a newline: %v), want %d at least and no end", got, nl, enough)
			}
		})
	}
	t.Run("stdio endless", func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- Serve(t.Context(), inR, outW, WithHang(HangEndless)) }()
		go func() { _, _ = io.WriteString(inW, call+"\n") }()
		if got, nl := readUpTo(t, outR, enough); got < enough || nl {
			t.Errorf("read %d bytes (a newline: %v), want %d at least and no end", got, nl, enough)
		}
		_ = outR.Close()
		if err := <-done; !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("Serve: got %v, want the write error once the reader is gone", err)
		}
	})
}

func TestAnswerSize(t *testing.T) {
	const size = 3 << 20
	check := func(t *testing.T, answer []byte) {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(answer, &m); err != nil || m.ID != 2 || len(m.Result.Content) != 1 || len(m.Result.Content[0].Text) != size {
			t.Fatalf("got an answer of %d bytes (%v), want id 2 and a text of %d bytes", len(answer), err, size)
		}
	}
	t.Run("http", func(t *testing.T) {
		url, client := newServer(t, Handler(WithAnswerSize(size)))
		resp, body, err := post(t, t.Context(), client, url, call)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("got %v, %v", resp, err)
		}
		check(t, []byte(body))
	})
	t.Run("stdio", func(t *testing.T) {
		in, out, done := stdio(t.Context(), WithAnswerSize(size))
		_, _ = io.WriteString(in, call+"\n")
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		check(t, line)
		_ = in.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}
