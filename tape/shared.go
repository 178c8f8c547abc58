package tape

import (
	"bufio"
	"io"
	"runtime"
	"slices"
	"sync"
)

// Shared is a Source whose tape is decoded once for all its readers: a
// run opens its tape several times (the environment it restores, the
// last seq of each session, the replay itself, the mock's index), and an
// imported format (an Agent VCR cassette, a HAR file, another recorder's
// file) costs a whole decode each time. The first OpenSource of a Shared
// decodes as OpenSource of its source does; the readers opened after it
// read the messages that decode kept (in its temporary file, or in
// memory), with the same header and the same import warnings. A native
// tape is read from its file each time, as before: it needs no decoding.
//
// Every OpenSource of a Shared must be given the same options (they
// change what is decoded); its readers may be used from several
// goroutines at once, each reader by one. Close releases what the decode
// kept; so does the garbage collector once the Shared is unreachable.
type Shared struct {
	src Source

	mu      sync.Mutex // guards the fields below, and the first decode
	decoded bool       // the first OpenSource returned
	kept    *keptImport
}

// keptImport is what an import's first decode found, for the readers
// after it.
type keptImport struct {
	format   Format
	header   Header
	warnings []string
	im       *imported // its store is the base of every view
}

// Share returns a Shared reading src. It reads nothing yet.
func Share(src Source) *Shared { return &Shared{src: src} }

// Name is the source's name.
func (s *Shared) Name() string { return s.src.Name() }

// Open opens the source's bytes, as they are: not decoded, not shared.
func (s *Shared) Open() (io.ReadSeekCloser, error) { return s.src.Open() }

// Source is the Source s reads: a File stays a File, for callers that
// read a native tape's lines back from the file.
func (s *Shared) Source() Source { return s.src }

// Close releases what the first decode kept. Readers opened before it
// must not be used after it; an OpenSource after it decodes again.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.kept
	s.kept, s.decoded = nil, false
	if k == nil {
		return nil
	}
	return k.im.store.close()
}

// open is OpenSource for a Shared.
func (s *Shared) open(opts []Option) (*Reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept != nil {
		return s.kept.reader(s.src.Name(), opts), nil
	}
	r, err := openSource(s.src, opts)
	if err != nil || s.decoded {
		return r, err // a native tape, or an import that cannot be kept
	}
	s.decoded = true
	im, ok := r.importSource().(*imported)
	if !ok {
		return r, nil // native, or a log streamed from its file
	}
	base, ok := keepable(im.store)
	if !ok {
		return r, nil
	}
	s.kept = &keptImport{format: r.format, header: r.header, warnings: slices.Clone(r.warnings),
		im: &imported{store: base, refs: im.refs, session: im.session, rename: im.rename}}
	// The first reader reads a view too: the base is closed by Close, or
	// once s is garbage, never by a reader.
	r.setImported(r.format, r.header, s.kept.view())
	runtime.AddCleanup(s, func(st msgStore) { st.close() }, msgStore(base))
	return r, nil
}

// keepable returns the store an import's readers can share, flushed, and
// whether it is one.
func keepable(st msgStore) (msgStore, bool) {
	switch st := st.(type) {
	case *memStore: // readers share its messages, which they do not write
		return st, true
	case *spillStore:
		if st.bw.Flush() != nil {
			return nil, false
		}
		return st, true
	}
	return nil, false
}

// view returns an import that reads k's messages and whose close leaves
// them be.
func (k *keptImport) view() *imported {
	im := *k.im
	switch st := k.im.store.(type) {
	case *memStore:
		im.store = memView{st}
	case *spillStore:
		// ReadAt is safe from several goroutines; the buffers are the view's.
		im.store = &spillStore{f: st.f, bw: bufio.NewWriterSize(io.Discard, 16), off: st.off, lines: st.lines, size: st.size, view: true}
	}
	return &im
}

// reader returns a reader of k's messages, as OpenSource returned the
// first one.
func (k *keptImport) reader(name string, opts []Option) *Reader {
	r := newFront(name, opts)
	r.warnings = slices.Clone(k.warnings)
	r.setImported(k.format, k.header, k.view())
	return r
}

// memView is a shared memStore that its readers do not close.
type memView struct{ s *memStore }

func (v memView) add(m Message) error        { return v.s.add(m) }
func (v memView) get(i int) (Message, error) { return v.s.get(i) }
func (v memView) close() error               { return nil }

// LastSeqs returns each session's last seq on the tape when the first
// decode kept an import whose messages are all of one session (an Agent
// VCR cassette): the last message's, known without reading any. ok is
// false otherwise (nothing decoded or kept yet, a native tape, an import
// of several sessions): the caller reads the tape for them.
func (s *Shared) LastSeqs() (lasts map[string]int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept == nil {
		return nil, false
	}
	im := s.kept.im
	if im.session == "" || im.rename != nil || len(im.refs) == 0 {
		return nil, false
	}
	return map[string]int64{im.session: im.refs[len(im.refs)-1].seq}, true
}
