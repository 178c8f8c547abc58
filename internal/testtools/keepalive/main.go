// Command keepalive measures what clients of a recording proxy get when
// its upstream closes kept-alive connections as requests arrive on them:
// N clients, each on a connection of its own, post initialize once at the
// same moment, then again 5.95-6.05 s later (client i at 5.95 s + i ms),
// when a Node server (keepAliveTimeout 5 s, and its grace) closes the
// proxy's idle upstream connections. It prints the statuses of both
// rounds ("error": no answer). scripts/bench-keepalive.sh runs it through
// replayctl record against server-everything.
//
//	keepalive -url http://127.0.0.1:13322/mcp -n 100
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"keepalive","version":"0"}}}`

// post sends initialize to url and reads the whole answer.
func post(c *http.Client, url string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

func main() {
	url := flag.String("url", "", "the URL to post to (the proxy's)")
	n := flag.Int("n", 100, "clients")
	first := flag.Duration("again", 5950*time.Millisecond, "when the first client posts again, after the start")
	flag.Parse()
	if *url == "" {
		fmt.Fprintln(os.Stderr, "keepalive: give -url")
		os.Exit(2)
	}
	var mu sync.Mutex
	rounds := [2]map[string]int{{}, {}}
	note := func(round, code int, err error) {
		k := fmt.Sprint(code)
		if err != nil {
			k = "error"
		}
		mu.Lock()
		rounds[round][k]++
		mu.Unlock()
	}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range *n {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
			code, err := post(c, *url)
			note(0, code, err)
			time.Sleep(time.Until(start.Add(*first + time.Duration(i)*time.Millisecond)))
			code, err = post(c, *url)
			note(1, code, err)
		})
	}
	wg.Wait()
	fmt.Printf("first %v second %v\n", rounds[0], rounds[1])
}
