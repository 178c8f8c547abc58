// Command limitsbench measures what hostile clients cost replayctl serve
// and record --listen (BENCHMARKS.md, issue 22): it starts the given
// binary, runs one scenario against it on loopback, stops it with
// SIGTERM and prints its peak resident memory and what the clients got.
//
//	go run ./internal/testtools/limitsbench -bin BINARY -mode serve|record -scenario bodies|batch [-upstream URL]
//
// bodies: 100 connections each announce a 15 MB body and send 14 MB of
// it, and hold. batch: one session, then one POST batch of 100,000
// tools/call requests the tape does not have (record relays it to
// -upstream, a real server).
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the replayctl binary")
	mode := flag.String("mode", "serve", "serve | record")
	scenario := flag.String("scenario", "bodies", "bodies | batch")
	tape := flag.String("tape", "examples/go-sdk-2025.jsonl", "serve's tape")
	conns := flag.Int("conns", 100, "bodies: connections")
	announced := flag.Int64("announced", 15_000_000, "bodies: the Content-Length each announces")
	sent := flag.Int64("sent", 14_000_000, "bodies: the bytes each sends")
	batch := flag.Int("batch", 100_000, "batch: requests in the batch")
	upstream := flag.String("upstream", "http://127.0.0.1:1/mcp", "record's upstream")
	flag.Parse()
	if err := run(*bin, *mode, *scenario, *tape, *upstream, *conns, *announced, *sent, *batch); err != nil {
		fmt.Fprintln(os.Stderr, "limitsbench:", err)
		os.Exit(1)
	}
}

func run(bin, mode, scenario, tape, upstream string, conns int, announced, sent int64, batch int) error {
	dir, err := os.MkdirTemp("", "limitsbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := []string{"serve", "--listen", "127.0.0.1:0", tape}
	if mode == "record" {
		args = []string{"record", "-o", dir + "/rec.jsonl", "--listen", "127.0.0.1:0", "--upstream", upstream}
	}
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stderr)
	var u string
	for sc.Scan() {
		for _, prefix := range []string{"serving on ", "recording "} {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				u = strings.Fields(rest)[0]
			}
		}
		if u != "" {
			break
		}
	}
	if u == "" {
		return fmt.Errorf("%s printed no URL", mode)
	}
	var errBytes int64
	counted := make(chan struct{})
	go func() {
		n, _ := io.Copy(io.Discard, stderr)
		errBytes = n
		close(counted)
	}()
	switch scenario {
	case "bodies":
		err = bodies(u, conns, announced, sent)
	case "batch":
		err = hugeBatch(u, batch)
	default:
		err = fmt.Errorf("unknown scenario %q", scenario)
	}
	if cmd.Process.Signal(syscall.SIGTERM) != nil { // no SIGTERM on Windows
		_ = cmd.Process.Kill()
	}
	<-counted
	_ = cmd.Wait()
	if mb, ok := peakRSSMB(cmd.ProcessState); ok {
		fmt.Printf("%s %s: peak RSS %d MB; %d bytes on stderr\n", mode, scenario, mb, errBytes)
	}
	return err
}

// bodies opens n connections that each announce a body and send part
// of it, waits until each has sent it or been answered, and closes them.
func bodies(u string, n int, announced, sent int64) error {
	pu, _ := url.Parse(u)
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", pu.RequestURI(), pu.Host, announced)
	part := bytes.Repeat([]byte(" "), int(sent))
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	cs := make([]net.Conn, 0, n)
	for range n {
		c, err := net.DialTimeout("tcp", pu.Host, 10*time.Second)
		if err != nil {
			return err
		}
		cs = append(cs, c)
		wg.Go(func() {
			_ = c.SetWriteDeadline(time.Now().Add(60 * time.Second))
			_, _ = c.Write([]byte(head))
			_, err := c.Write(part)
			what := "held"
			if err != nil {
				what = "cut while sending"
			}
			_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				what = resp.Status
			}
			mu.Lock()
			statuses[what]++
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, c := range cs {
		c.Close()
	}
	fmt.Printf("connections: %v\n", statuses)
	return nil
}

// hugeBatch opens a session and POSTs one batch of n requests.
func hugeBatch(u string, n int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	post := func(sid, body string) (*http.Response, []byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	resp, _, err := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"limitsbench","version":"1"}}}`)
	if err != nil {
		return err
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nope","arguments":{"i":%d}}}`, i+10, i)
	}
	b.WriteByte(']')
	resp, body, err := post(sid, b.String())
	if err != nil {
		return err
	}
	fmt.Printf("a batch of %d (%d bytes): status %d, answer %d bytes\n", n, b.Len(), resp.StatusCode, len(body))
	return nil
}
