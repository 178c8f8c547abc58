package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The conversions stream: the peak memory of `import` and `export --har`
// does not grow with the size of the file. Each test converts a file of
// size S and one of 2S (the same content, twice as many messages) and
// checks that the second run's peak RSS is less than S/2 above the
// first's. Whole-file conversion holds the file several times over, so
// its growth is several times S.

// pad2k is the filler that makes each message about 2 KB.
var pad2k = strings.Repeat("0123456789abcdef", 128)

// writeBig writes a file of about size bytes into dir under name, calling
// item(i) for each item until the size is reached; head and tail frame it.
func writeBig(t *testing.T, path string, size int64, head, tail string, item func(w *bufio.Writer, i int)) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cw := &countingWriter{w: f}
	bw := bufio.NewWriterSize(cw, 1<<20)
	bw.WriteString(head)
	for i := 0; cw.n+int64(bw.Buffered()) < size; i++ {
		item(bw, i)
	}
	bw.WriteString(tail)
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

type countingWriter struct {
	w *os.File
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// bigHAR writes a browser-style HAR of about size bytes: POSTs answered
// by JSON bodies, every fourth by an event stream of a notification and
// the answer, in one session.
func bigHAR(t *testing.T, path string, size int64) { bigHARPad(t, path, size, pad2k) }

func bigHARPad(t *testing.T, path string, size int64, pad string) {
	writeBig(t, path, size, `{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[`, "\n]}}\n", func(w *bufio.Writer, i int) {
		if i > 0 {
			w.WriteString(",")
		}
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, i, pad)
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, i, pad)
		mime := "application/json"
		if i%4 == 3 {
			mime = "text/event-stream"
			resp = "event: message\ndata: " + fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}`, pad) + "\n\nevent: message\ndata: " + resp + "\n\n"
		}
		at := fmt.Sprintf("2026-05-01T10:%02d:%02d.%03dZ", i/60000%60, i/1000%60, i%1000)
		fmt.Fprintf(w, "\n"+`{"startedDateTime":%q,"time":2,"request":{"method":"POST","url":"http://127.0.0.1:8080/mcp","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"Content-Type","value":"application/json"},{"name":"Mcp-Session-Id","value":"abc"}],"queryString":[],"postData":{"mimeType":"application/json","text":%s},"headersSize":-1,"bodySize":%d},"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"Content-Type","value":%q}],"content":{"size":%d,"mimeType":%q,"text":%s},"redirectURL":"","headersSize":-1,"bodySize":%d},"cache":{},"timings":{"send":0,"wait":1,"receive":1}}`,
			at, jsonText(req), len(req), mime, len(resp), mime, jsonText(resp), len(resp))
	})
}

// bigLog writes a JSON-RPC log of about size bytes: wrapped requests and
// their answers with times and direction marks.
func bigLog(t *testing.T, path string, size int64) { bigLogPad(t, path, size, pad2k) }

func bigLogPad(t *testing.T, path string, size int64, pad string) {
	writeBig(t, path, size, "", "", func(w *bufio.Writer, i int) {
		at := fmt.Sprintf("2026-05-01T10:%02d:%02d.%03dZ", i/60000%60, i/1000%60, i%1000)
		if i%2 == 0 {
			fmt.Fprintf(w, `{"ts":%q,"direction":"send","message":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}}`+"\n", at, i, pad)
		} else {
			fmt.Fprintf(w, `{"ts":%q,"direction":"recv","message":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}}`+"\n", at, i-1, pad)
		}
	})
}

// bigNativeTape writes a native tape of about size bytes recorded over
// HTTP: requests, notifications on their streams and answers.
func bigNativeTape(t *testing.T, path string, size int64) { bigNativeTapePad(t, path, size, pad2k) }

func bigNativeTapePad(t *testing.T, path string, size int64, pad string) {
	var n int
	writeBig(t, path, size, `{"type":"header","format":"replayctl-tape","version":1,"created_at":"2026-05-01T10:00:00Z","transport":"streamable-http","server":{"url":"http://127.0.0.1:8080/mcp"}}`+"\n", "", func(w *bufio.Writer, i int) {
		id, tus := i/3, i*100
		switch i % 3 {
		case 0:
			fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}},"http":{"headers":{"Mcp-Session-Id":["abc"]}}}`+"\n", i, tus, id, pad)
		case 1:
			fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}},"http":{"status":200,"headers":{"Content-Type":["text/event-stream"]}},"sse":{"id":"e%d"}}`+"\n", i, tus, pad, i)
		case 2:
			fmt.Fprintf(w, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}},"http":{"status":200,"headers":{"Content-Type":["text/event-stream"]}},"sse":{"id":"e%d"}}`+"\n", i, tus, id, pad, i)
		}
		n = i + 1
	})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", n, (n-1)*100)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// bigVCR writes an Agent VCR cassette of about size bytes: the handshake,
// then tool calls answered after a progress notification.
func bigVCR(t *testing.T, path string, size int64) {
	head := `{"format_version":"1.0.0","metadata":{"version":"1.0.0","recorded_at":"2026-05-01T10:00:00Z","transport":"stdio","session_id":"s-1"},` + "\n" +
		`"session":{"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}},` + "\n" +
		`"initialize_response":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}},"interactions":[`
	writeBig(t, path, size, head, "\n]}}\n", func(w *bufio.Writer, i int) {
		if i > 0 {
			w.WriteString(",")
		}
		at := fmt.Sprintf("2026-05-01T10:%02d:%02d.%03dZ", i/60000%60, i/1000%60, i%1000)
		fmt.Fprintf(w, "\n"+`{"sequence":%d,"timestamp":%q,"direction":"client_to_server","request":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}},"response":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]},"error":null},"notifications":[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}],"latency_ms":1.5}`,
			i, at, i+1, pad2k, i+1, pad2k)
	})
}

// flatMemory converts a file of size and one of 2×size (made by gen) with
// args (IN and OUT appended) and checks the growth of the peak RSS.
func flatMemory(t *testing.T, size int64, gen func(*testing.T, string, int64), in, out string, args ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("writes large files")
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	var rss [2]int64
	for k, sz := range []int64{size, 2 * size} {
		src := filepath.Join(dir, fmt.Sprintf("in%d%s", k, in))
		dst := filepath.Join(dir, fmt.Sprintf("out%d%s", k, out))
		gen(t, src, sz)
		res, peak := measured(t, append(append([]string{}, args...), src, dst)...)
		if res.code != 0 {
			t.Fatalf("%v: exit %d\nstderr:\n%s", args, res.code, res.stderr)
		}
		if peak < 0 {
			t.Skip("peak RSS is read on Linux only")
		}
		rss[k] = peak
		t.Logf("%v of %d MB: peak RSS %d MB", args, sz>>20, peak>>20)
		os.Remove(src)
		os.Remove(dst)
	}
	if grow := rss[1] - rss[0]; grow > size/2 {
		t.Errorf("peak RSS grew by %d MB (%d → %d MB) for %d MB more input, want under %d MB: the whole file is held in memory",
			grow>>20, rss[0]>>20, rss[1]>>20, size>>20, size>>21)
	}
}

// TestImportHARMemoryFlat: `import` of a HAR streams its entries.
func TestImportHARMemoryFlat(t *testing.T) {
	flatMemory(t, 32<<20, bigHAR, ".har", ".jsonl", "import")
}

// TestImportLogMemoryFlat: `import` of a JSON-RPC log streams its lines,
// long ones and short ones (about 130 bytes: what is kept per line, if
// anything, shows).
func TestImportLogMemoryFlat(t *testing.T) {
	t.Run("2 KB lines", func(t *testing.T) {
		flatMemory(t, 8<<20, bigLog, ".log", ".jsonl", "import")
	})
	t.Run("short lines", func(t *testing.T) {
		flatMemory(t, 8<<20, func(t *testing.T, path string, size int64) { bigLogPad(t, path, size, "") }, ".log", ".jsonl", "import")
	})
}

// TestImportVCRMemoryFlat: `import` of an Agent VCR cassette streams
// its interactions.
func TestImportVCRMemoryFlat(t *testing.T) {
	flatMemory(t, 32<<20, bigVCR, ".vcr", ".jsonl", "import")
}

// TestExportHARMemoryFlat: `export --har` writes entries as it goes.
func TestExportHARMemoryFlat(t *testing.T) {
	flatMemory(t, 32<<20, bigNativeTape, ".jsonl", ".har", "export", "--har")
}

// TestExportScriptsMemoryFlat: `export --k6`, `--postman` and `--openapi`
// read the tape as export --har does and write each request as they go.
func TestExportScriptsMemoryFlat(t *testing.T) {
	for _, c := range []struct{ flag, out string }{{"--k6", ".js"}, {"--postman", ".json"}, {"--openapi", ".json"}} {
		t.Run(c.flag, func(t *testing.T) {
			flatMemory(t, 32<<20, bigNativeTape, ".jsonl", c.out, "export", c.flag)
		})
	}
}

// TestConvertPeakRSS measures, for BENCHMARKS.md, the peak RSS of the
// conversions at the sizes issue 22 names: import of a 229 MB HAR (of
// 2 KB messages, and of messages of ~100 bytes: what is kept per message
// shows), export
// --har of a 210 MB tape, import of a 17 MB JSON-RPC log (short lines:
// about 130 bytes); and import of a 200 MB Agent VCR cassette. It runs only with REPLAYCTL_BENCH_CONVERT=1;
// REPLAYCTL_BENCH_BIN measures another build instead (one of an older
// commit, for a before-and-after).
func TestConvertPeakRSS(t *testing.T) {
	if os.Getenv("REPLAYCTL_BENCH_CONVERT") == "" {
		t.Skip("a measurement: set REPLAYCTL_BENCH_CONVERT=1")
	}
	bin := binary
	if b := os.Getenv("REPLAYCTL_BENCH_BIN"); b != "" {
		bin = b
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	for _, c := range []struct {
		name, in, out string
		size          int64
		gen           func(*testing.T, string, int64, string)
		pad           string
		args          []string
	}{
		{"import HAR", ".har", ".jsonl", 229e6, bigHARPad, pad2k, []string{"import"}},
		{"import HAR of small exchanges", ".har", ".jsonl", 229e6, bigHARPad, "", []string{"import"}},
		{"export --har", ".jsonl", ".har", 210e6, bigNativeTapePad, pad2k, []string{"export", "--har"}},
		{"export --har of small messages", ".jsonl", ".har", 210e6, bigNativeTapePad, "", []string{"export", "--har"}},
		{"import JSON-RPC log", ".log", ".jsonl", 17e6, bigLogPad, "", []string{"import"}},
		{"import Agent VCR", ".vcr", ".jsonl", 200e6, func(t *testing.T, path string, size int64, _ string) { bigVCR(t, path, size) }, "", []string{"import"}},
	} {
		src, dst := filepath.Join(dir, "in"+c.in), filepath.Join(dir, "out"+c.out)
		c.gen(t, src, c.size, c.pad)
		fi, err := os.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		res, rss := measuredBin(t, bin, append(c.args, src, dst)...)
		if res.code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.name, res.code, res.stderr)
		}
		t.Logf("%s of %.0f MB: peak RSS %.0f MiB", c.name, float64(fi.Size())/1e6, float64(rss)/(1<<20))
		os.Remove(src)
		os.Remove(dst)
	}
}
