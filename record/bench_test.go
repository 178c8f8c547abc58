package record

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// BenchmarkStdioRoundTrip measures one request and its answer through a
// trivial server (the odd test server: it parses the line and answers at
// once), spoken to directly over its pipes and through Stdio recording
// into a tape file. The difference of the p50s is what the proxy adds per
// round trip (BENCHMARKS.md).
func BenchmarkStdioRoundTrip(b *testing.B) {
	argv, _ := testServer("odd")
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")
	roundTrips := func(b *testing.B, w io.Writer, r *bufio.Reader) {
		// The banner and blank line come first.
		for range 2 {
			if _, err := r.ReadString('\n'); err != nil {
				b.Fatal(err)
			}
		}
		lat := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		for b.Loop() {
			start := time.Now()
			if _, err := w.Write(req); err != nil {
				b.Fatal(err)
			}
			if _, err := r.ReadSlice('\n'); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
	}
	b.Run("direct", func(b *testing.B) {
		cmd := exec.Command(argv[0])
		cmd.Env = append(os.Environ(), serverEnv+"=odd")
		in, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		roundTrips(b, in, bufio.NewReader(out))
		in.Close()
		_ = cmd.Wait()
	})
	b.Run("proxied", func(b *testing.B) {
		inR, inW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		defer outR.Close()
		tap, _ := newFileTap(b)
		defer tap.Close()
		done := make(chan error, 1)
		go func() {
			_, err := Stdio(context.Background(), tap, inR, outW, argv, StdioEnv(serverEnv+"=odd"))
			done <- err
		}()
		roundTrips(b, inW, bufio.NewReader(outR))
		inW.Close()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		if n := tap.Messages(); n < int64(b.N)*2 {
			b.Fatal(fmt.Sprintf("%d messages recorded, want %d", n, 2*b.N))
		}
	})
}
