package tape

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// bigTape writes a native tape of n messages of of about 150 bytes each (msg).
func bigTape(tb testing.TB, n int) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "big.jsonl")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	fmt.Fprint(bw, hdr)
	for i := range n {
		dir := "c2s"
		if i%2 == 1 {
			dir = "s2c"
		}
		fmt.Fprintf(bw, `{"type":"message","seq":%d,"t_us":%d,"session":"s1","dir":"%s","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"note":"a forty-seven byte note to make 150 bytes"}}}}`+"\n", i, i*10, dir, i)
	}
	fmt.Fprintf(bw, `{"type":"end","messages":%d,"duration_us":%d}`+"\n", n, (n-1)*10)
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestReaderMemoryFlat reads 200k messages and checks that the reader
// allocates a bounded number of objects per message and that the live heap
// does not grow with the tape: the reader streams.
func TestReaderMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 35 MB tape")
	}
	const n = 200_000
	p := bigTape(t, n)
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	var ms runtime.MemStats
	heapAt := func() uint64 {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	read := func(k int) {
		for range k {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
	}
	read(10_000) // warm up: buffers, index
	heap0 := heapAt()
	mallocs0 := ms.Mallocs
	read(n - 10_000)
	heap1 := heapAt()
	perMsg := float64(ms.Mallocs-mallocs0) / float64(n-10_000)
	if perMsg > 0.05 {
		t.Errorf("got %.2f allocations per message, want at most 0.05 (msg copies come from shared blocks)", perMsg)
	}
	// The tape is ~35 MB; a streaming reader's heap stays within 1 MB of where it was.
	if heap1 > heap0+1<<20 {
		t.Errorf("live heap grew from %d to %d bytes over %d messages, want flat", heap0, heap1, n-10_000)
	}
	if got, want := len(r.native().index), (n+indexEvery-1)/indexEvery; got != want {
		t.Errorf("index has %d entries, want %d", got, want)
	}
	t.Logf("%.3f allocs/message, heap %d → %d", perMsg, heap0, heap1)
}
