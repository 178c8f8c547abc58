// Command gentape writes synthetic native tapes for benchmarks: one or more
// sessions of an initialize handshake followed by tools/call requests at a
// fixed gap, each answered after half the gap.
//
//	go run ./internal/testtools/gentape -requests 500000 -gap 1ms -o big.jsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	var (
		requests = flag.Int("requests", 1000, "tools/call requests per session")
		sessions = flag.Int("sessions", 1, "recorded sessions, interleaved")
		gap      = flag.Duration("gap", time.Millisecond, "time between two requests of a session")
		out      = flag.String("o", "", "output file (required)")
	)
	flag.Parse()
	if *out == "" || *requests < 0 || *sessions < 1 || *gap <= 0 {
		fmt.Fprintln(os.Stderr, "gentape: want -o FILE, -requests >= 0, -sessions >= 1, -gap > 0")
		os.Exit(2)
	}
	if err := write(*out, *requests, *sessions, *gap); err != nil {
		fmt.Fprintln(os.Stderr, "gentape:", err)
		os.Exit(1)
	}
}

func write(path string, requests, sessions int, gap time.Duration) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(f, 1<<20)
	seq := 0
	line := func(us int64, session int, dir, msg string) {
		fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s%d","dir":"%s","msg":%s}`+"\n", seq, us, session, dir, msg)
		seq++
	}
	fmt.Fprintln(w, `{"type":"header","format":"replayctl-tape","version":1,"protocol_version":"2025-06-18","transport":"stdio","tags":{"generator":"gentape"}}`)
	gapUS := gap.Microseconds()
	for s := 1; s <= sessions; s++ {
		line(0, s, "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"gentape","version":"1"}}}`)
		line(gapUS/4, s, "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"gentape","version":"1"}}}`)
		line(gapUS/2, s, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	var last int64
	for i := 1; i <= requests; i++ {
		for s := 1; s <= sessions; s++ {
			t := int64(i) * gapUS
			line(t, s, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"message %d"}}}`, i, i))
			line(t+gapUS/2, s, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"Echo: message %d"}]}}`, i, i))
			last = t + gapUS/2
		}
	}
	fmt.Fprintf(w, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", seq, last)
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
