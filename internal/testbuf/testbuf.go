// Package testbuf is the buffer a test gives a process's output or a
// logger that other goroutines write while the test reads it.
package testbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that any number of goroutines may write and
// read at once. Its zero value is ready to use.
type Buffer struct {
	mu    sync.Mutex // guards b and wrote
	b     bytes.Buffer
	wrote chan struct{} // a value after a write, if none is waiting; made on first use
}

// Write appends p; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.signal() <- struct{}{}:
	default:
	}
	return b.b.Write(p)
}

// String returns what has been written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Wrote returns a channel that holds a value once something was
// written since the value was last taken (one value for any number of
// writes): a test waiting for some output reads String, and if it is
// not there yet waits on Wrote (with a bound) and reads String again.
// No write is missed between the two: a write before the first call of
// Wrote leaves its value too.
func (b *Buffer) Wrote() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.signal()
}

// signal returns wrote, making it the first time. Called with mu held.
func (b *Buffer) signal() chan struct{} {
	if b.wrote == nil {
		b.wrote = make(chan struct{}, 1)
	}
	return b.wrote
}
