package tape

import (
	"errors"
	"io"
	"os"
	"testing"
)

// slowPipe is an io.Pipe its writer feeds one byte per Write, as a
// capture piped in as it is made (tcpdump -w - | gzip | replayctl
// import -) arrives: a read gets what has been written, and waits for
// more. read is how many bytes were read once the reader is closed
// (each Write returns once its byte was read).
type slowPipe struct {
	*io.PipeReader
	read chan int
}

func newSlowPipe(b []byte) slowPipe {
	pr, pw := io.Pipe()
	p := slowPipe{pr, make(chan int, 1)}
	go func() {
		n := 0
		for ; n < len(b); n++ {
			if _, err := pw.Write(b[n : n+1]); err != nil {
				break
			}
		}
		pw.Close()
		p.read <- n
	}()
	return p
}

// Seek: a pipe cannot seek.
func (slowPipe) Seek(int64, int) (int64, error) { return 0, errors.New("a pipe cannot seek") }

// TestPcapDetectReadsMagicOnly: a capture, gzip-compressed or not, is
// told by its magic number alone (4 bytes; gzip's 2): detection reads no
// more of a slow pipe than that, where it used to wait for 4 KiB of a
// compressed one. Then, fed whole, it is imported as the file is.
func TestPcapDetectReadsMagicOnly(t *testing.T) {
	plain, err := os.ReadFile("testdata/gosdk-2025.pcap")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"capture.pcap", plain},
		{"capture.pcap.gz", gzipped(t, "capture.pcap", plain)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newSlowPipe(tc.b)
			probe := newProbe(newNativeReader(newFront(tc.name, nil), p))
			ok := pcapImporter{}.Detect(probe)
			p.Close()
			if n := <-p.read; !ok || n > 4 {
				t.Errorf("Detect: %v after reading %d bytes of %d; want true after 4 at most", ok, n, len(tc.b))
			}

			p = newSlowPipe(tc.b)
			r, err := NewReader(tc.name, p)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n := 0
			for ; ; n++ {
				if _, err := r.Next(); err != nil {
					if err != io.EOF {
						t.Fatal(err)
					}
					break
				}
			}
			if n != 40 || r.Format() != FormatPcap {
				t.Errorf("read through the pipe: %d messages (%s), want 40 (pcap)", n, r.Format())
			}
		})
	}
}
