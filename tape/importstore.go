package tape

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Where an import keeps the messages it found. An importer reads its
// file once, from the first byte to the last, and puts each message into
// a msgStore as it finds it; only what it needs to order and number them
// stays in memory (an importRef each). A Reader's store is a spill file,
// so that importing a file of any size costs memory in proportion to its
// largest entry or line, not to the file; DecodeHAR and DecodeLog, which
// return every message, keep them in memory.

// msgStore keeps an import's messages, numbered from 0 in the order added.
type msgStore interface {
	// add keeps m (an import leaves Seq and TUS 0: its importRef says
	// them).
	add(m Message) error
	// get returns message i, the caller's to keep.
	get(i int) (Message, error)
	// close releases the store.
	close() error
}

// importRef is one message of an imported tape, in seq order: where the
// store has it, and what the import decided about it once it had read the
// whole file.
type importRef struct {
	seq, tus int64
	i        int32 // an import holds fewer than 2³¹ messages
	dir      dirCode
}

// dirCode is a direction in a byte: keep the stored one, or C2S or S2C.
type dirCode uint8

const (
	dirStored dirCode = iota
	dirC2S
	dirS2C
)

func codeOf(d Dir) dirCode {
	if d == C2S {
		return dirC2S
	}
	return dirS2C
}

// importSource serves an imported tape's messages by position in seq
// order, 0 first: an imported (spilled HAR) or a logStream.
type importSource interface {
	count() int
	seqAt(k int) int64
	// message returns message k; reading them in order is cheapest.
	message(k int) (Message, error)
	lastTUS() int64
	close() error
}

var (
	_ importSource = (*imported)(nil)
	_ importSource = (*logStream)(nil)
)

// imported is an imported tape's messages.
type imported struct {
	store msgStore
	refs  []importRef
	// session, when not "", is every message's session (an Agent VCR
	// cassette names it where it likes, after its messages or before)
	session string
	// rename, when not nil, gives each stored session its name (a
	// capture's sessions are named once all of it has been read)
	rename map[string]string
}

// message returns the k-th message in seq order.
func (im *imported) message(k int) (Message, error) {
	ref := im.refs[k]
	m, err := im.store.get(int(ref.i))
	if err != nil {
		return Message{}, err
	}
	m.Seq, m.TUS = ref.seq, ref.tus
	switch ref.dir {
	case dirC2S:
		m.Dir = C2S
	case dirS2C:
		m.Dir = S2C
	}
	if im.session != "" {
		m.Session = im.session
	}
	if im.rename != nil {
		m.Session = im.rename[m.Session]
	}
	return m, nil
}

// messages returns every message, in seq order.
func (im *imported) messages() ([]Message, error) {
	out := make([]Message, len(im.refs))
	for k := range im.refs {
		m, err := im.message(k)
		if err != nil {
			return nil, err
		}
		out[k] = m
	}
	return out, nil
}

func (im *imported) count() int        { return len(im.refs) }
func (im *imported) seqAt(k int) int64 { return im.refs[k].seq }
func (im *imported) close() error      { return im.store.close() }

func (im *imported) lastTUS() int64 {
	if len(im.refs) == 0 {
		return 0
	}
	return im.refs[len(im.refs)-1].tus
}

func (ls *logStream) count() int        { return ls.n }
func (ls *logStream) seqAt(k int) int64 { return int64(k) }
func (ls *logStream) close() error {
	if ls.tmp == nil {
		return nil
	}
	f := ls.tmp
	ls.tmp = nil
	return removeTemp(f)
}
func (ls *logStream) lastTUS() int64 { return ls.last }

// memStore keeps the messages in memory, memChunk to a chunk: every
// chunk but the last holds memChunk. A slice grown by append copied all
// the messages kept so far at each growth (five times the store's size in
// all, for a store of tens of thousands), and left the copies to the
// garbage collector.
type memStore struct {
	chunks [][]Message
	n      int
}

// memChunk is how many messages a memStore's chunk holds.
const memChunk = 1024

// memStoreOf is a memStore of msgs, which it keeps, not a copy.
func memStoreOf(msgs []Message) *memStore {
	s := &memStore{n: len(msgs)}
	for i := 0; i < len(msgs); i += memChunk {
		end := min(i+memChunk, len(msgs))
		s.chunks = append(s.chunks, msgs[i:end:end])
	}
	return s
}

func (s *memStore) add(m Message) error {
	if k := len(s.chunks); k == 0 || len(s.chunks[k-1]) == memChunk {
		s.chunks = append(s.chunks, make([]Message, 0, memChunk))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, m)
	s.n++
	return nil
}

// get returns message i as the store keeps it: its Msg is shared by the
// store's readers (a Shared's), which do not write it (Message.RPC), as
// a native tape's reader shares its blocks; so its parse, kept with it,
// still holds.
func (s *memStore) get(i int) (Message, error) { return s.chunks[i/memChunk][i%memChunk], nil }

// len is how many messages s keeps.
func (s *memStore) len() int { return s.n }

func (s *memStore) close() error { return nil }

// spillStore keeps the messages in a temporary file, one native message
// line each, and where each line starts in memory.
// The file is in the system's temporary folder (TMPDIR) and is removed by
// close (on Unix at once: the open file needs no name).
type spillStore struct {
	f      *os.File
	name   string // to remove at close, when it could not be removed at once
	bw     *bufio.Writer
	off    []int64 // where each line starts; the file's length follows
	lines  []int64 // the line of the imported file each message was read from
	size   int64
	buf    []byte
	env    envelope
	slab   slab
	closed bool
	view   bool // a reader's view of a Shared's store: close leaves it open
}

func newSpillStore(path string) (*spillStore, error) {
	f, err := os.CreateTemp("", ".replayctl-import-*")
	if err != nil {
		return nil, &Error{Path: path, Seq: -1, Err: err, Msg: fmt.Sprintf("cannot create a temporary file to import it into (%v): set TMPDIR to a folder with room for the messages", err)}
	}
	s := &spillStore{f: f, bw: bufio.NewWriterSize(f, 256<<10)}
	if os.Remove(f.Name()) != nil {
		s.name = f.Name()
	}
	return s, nil
}

func (s *spillStore) add(m Message) error {
	b, err := appendMessage(s.buf[:0], m)
	if err != nil {
		return err
	}
	s.buf = b
	if _, err := s.bw.Write(b); err != nil {
		return fmt.Errorf("write the import's temporary file: %w", err)
	}
	s.off = append(s.off, s.size)
	s.lines = append(s.lines, m.Line)
	s.size += int64(len(b))
	return nil
}

func (s *spillStore) get(i int) (Message, error) {
	if s.bw.Buffered() > 0 {
		if err := s.bw.Flush(); err != nil {
			return Message{}, fmt.Errorf("write the import's temporary file: %w", err)
		}
	}
	end := s.size
	if i+1 < len(s.off) {
		end = s.off[i+1]
	}
	n := int(end - s.off[i])
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	line := s.buf[:n]
	if _, err := s.f.ReadAt(line, s.off[i]); err != nil && err != io.EOF {
		return Message{}, fmt.Errorf("read the import's temporary file: %w", err)
	}
	line = line[:n-1] // the newline
	var m Message
	if scanEnvelope(line, &s.env) != nil {
		return Message{}, fmt.Errorf("read the import's temporary file: message %d is damaged", i)
	}
	if e := decodeMessage(line, &s.env, &m, "", &s.slab); e != nil {
		return Message{}, fmt.Errorf("read the import's temporary file: message %d: %w", i, e)
	}
	m.Line = s.lines[i]
	return m, nil
}

func (s *spillStore) close() error {
	if s.closed || s.view {
		return nil
	}
	s.closed = true
	err := s.f.Close()
	if s.name != "" {
		os.Remove(s.name)
	}
	return err
}
