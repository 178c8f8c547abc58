package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
)

// A write larger than the pipe holds waits for the reader, and the reader
// gets every byte, then the writer's end.
func TestMemPipeBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newMemPipe()
		big := bytes.Repeat([]byte("0123456789"), memPipeBytes/10+7)
		wrote := make(chan int, 1)
		go func() {
			n, _ := p.Write(big)
			p.closeWrite(io.EOF)
			wrote <- n
		}()
		synctest.Wait()
		select {
		case n := <-wrote:
			t.Fatalf("Write of %d bytes returned %d before anything was read, want it waiting", len(big), n)
		default:
		}
		got, err := io.ReadAll(p)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("read %d bytes, %v; want the %d written and no error", len(got), err, len(big))
		}
		if n := <-wrote; n != len(big) {
			t.Errorf("Write: got %d, want %d", n, len(big))
		}
	})
}

// Either end's close reaches the other side, waiting or not.
func TestMemPipeEnds(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		end      func(p *memPipe)
		read     string // what ReadAll gets of the "rest" written before the end
		readErr  error
		writeErr error // of a Write waiting for room at the end, and of one after it
	}{
		{"writer done", func(p *memPipe) { p.closeWrite(io.EOF) }, "rest", nil, errAfterHandler},
		{"writer failed", func(p *memPipe) { p.closeWrite(boom) }, "rest", boom, errAfterHandler},
		{"reader gone", func(p *memPipe) { p.closeRead(errBodyClosed) }, "", errBodyClosed, errAnswerGone},
		{"request cancelled", func(p *memPipe) { p.closeRead(context.Canceled) }, "", context.Canceled, errAnswerGone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newMemPipe()
				if _, err := p.Write([]byte("rest")); err != nil {
					t.Fatal(err)
				}
				waiting := make(chan error, 1)
				if tc.writeErr == errAnswerGone { // a writer waits for room
					go func() { _, err := p.Write(make([]byte, memPipeBytes)); waiting <- err }()
					synctest.Wait()
				}
				tc.end(p)
				if tc.writeErr == errAnswerGone {
					if err := <-waiting; !errors.Is(err, errAnswerGone) {
						t.Errorf("waiting Write: got %v, want %v", err, errAnswerGone)
					}
				}
				got, err := io.ReadAll(p)
				if string(got) != tc.read || !errors.Is(err, tc.readErr) {
					t.Errorf("ReadAll: got %q, %v; want %q, %v", got, err, tc.read, tc.readErr)
				}
				if _, err := p.Write([]byte("x")); !errors.Is(err, tc.writeErr) {
					t.Errorf("Write after the end: got %v, want %v", err, tc.writeErr)
				}
			})
		})
	}
}

// A Read waiting for data returns when the request is given up.
func TestMemPipeReaderWoken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newMemPipe()
		read := make(chan error, 1)
		go func() { _, err := p.Read(make([]byte, 8)); read <- err }()
		synctest.Wait()
		p.closeRead(context.Canceled)
		if err := <-read; !errors.Is(err, context.Canceled) {
			t.Errorf("waiting Read: got %v, want context.Canceled", err)
		}
	})
}
