package session

import (
	"testing"
	"unsafe"
)

// maxItemBytes bounds an Item: two are built per request (the request
// and its recorded answer), 200,000 in a replay of 100,000 requests, and
// the loader's blocks of them were the largest share of the bytes a
// replay allocates (issue 24). 392 bytes when it was written, from 432
// (the unused Released and Lag of scheduler.Timing, add_delay's Delay
// moved into Rules).
const maxItemBytes = 392

// TestItemSize: an Item grows only on purpose. A field most messages do
// not use goes out of line (as Rules does): raise the bound only for one
// that the common path needs.
func TestItemSize(t *testing.T) {
	if n := unsafe.Sizeof(Item{}); n > maxItemBytes {
		t.Errorf("an Item is %d bytes, want at most %d: put what most messages do not use behind a pointer (see Rules)", n, maxItemBytes)
	}
}
