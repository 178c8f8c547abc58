package mock

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/tape"
)

// index is what the matcher needs of a tape: each recorded session's
// client requests, in tape order, each with where its recorded answer
// is. It is built once and then only read, by every connection at once.
//
// A request is kept as its method and a hash of its params (see canon);
// an answer or a notification as where it lies. On a large native tape
// (see readBackOver) that is its line in the file, read back when a
// connection answers, so that the index costs a few dozen bytes per
// request rather than the tape's size; a smaller tape, or an imported one,
// read whole into memory anyway, keeps its messages in mem.
type index struct {
	sessions map[string][]entry
	methods  map[string]uint32 // method name → entry.method
	notes    []note            // every entry's, in the ranges of noteRuns
	noteRuns []noteRun         // entry.notes-1 → its notes
	big      []span            // where the messages too long for a loc are
	file     *os.File          // the native tape, or nil: messages are in mem
	mem      chunks            // the messages kept (none when they are read back from file)
	// A Server's index (see serveIndex) also has, parallel to sessions'
	// entries and to notes, what only it needs; nil for run's mock.
	info     map[string][]entryInfo
	noteInfo []noteInfo
	order    []string // the sessions, by the seq of their first request
	asides   map[string][]aside
	// lasts is each session's last seq on the tape, any message counted,
	// and messages the count of the tape's messages (run's mock only: see
	// Mock.LastSeqs, Mock.TapeCount).
	lasts    map[string]int64
	messages int64
	// examined counts the entries looked at to match a request that
	// missed, and to name the closest recorded one (a Server counts
	// those of every request): for tests, which assert that a miss
	// costs the same however long the session is.
	examined atomic.Int64

	keysOnce sync.Once
	keys     map[*entry]*keys // by the session's first entry: see keysOf

	canonOnce sync.Once // hashes the params left unhashed: see canonical
}

// canonical hashes the params of every entry whose hash a lazy builder
// left out (entry.req), the first time it is called: a replay that asks
// in recorded order matches by the params' bytes (matcher.inOrder) and
// never needs them. Every reader of entry.params calls it first.
func (idx *index) canonical() {
	idx.canonOnce.Do(func() {
		var c canon
		for _, es := range idx.sessions {
			for i := range es {
				if e := &es[i]; e.req != 0 {
					sp := idx.span(e.req)
					e.params, e.req = c.hash(idx.mem.at(sp.off, sp.n)), 0
				}
			}
		}
	})
}

// entry is one recorded client request and what the server recorded in
// return. It is kept small: a large tape's index holds one per request.
type entry struct {
	seq    int64
	params uint64 // the params' hash (canon), noParams for none
	// raw is the hash of the params' bytes as recorded (run's mock
	// only; 0 for redacted): a request with the very same bytes (or none)
	// is matched without canonicalizing them (see matcher.inOrder).
	raw uint64
	ans loc // the answer, with its recorded id; 0: none recorded
	// req is where the params are in mem while params is not hashed yet
	// (see index.canonical); 0 once it is, or when it never was left.
	req    loc
	method uint32
	notes  uint32 // 0, or 1 + the index in noteRuns of the server
	// notifications recorded before the answer
	// idAt and idEnd are where the id is in the answer held in memory
	// (run's mock only; idEnd 0: not known), so that the answer takes
	// the live id without being parsed again.
	idAt, idEnd uint32
}

// noteRun is where an entry's notes are in index.notes.
type noteRun struct{ first, n uint32 }

// note is a recorded server notification, and where it is.
type note struct {
	seq int64
	at  loc
}

// loc is where a recorded message is: its line's offset in the file and
// length (a native tape read back) or its offset and length in mem, as
// off<<locBits | n; or, for a message too long or too far for that,
// i<<locBits | locBig, its span being big[i]. A message is never empty:
// loc 0 is none.
type loc uint64

const (
	locBits = 24
	locBig  = 1<<locBits - 1
)

// span is a message's offset and length.
type span struct {
	off int64
	n   int
}

// span returns where the message at l is.
func (idx *index) span(l loc) span {
	if l&locBig == locBig {
		return idx.big[l>>locBits]
	}
	return span{int64(l >> locBits), int(l & locBig)}
}

// readIndex reads the tape src once, from start to end, and indexes
// it. An error reading the tape is returned, whichever session it is in.
// The index of a native tape keeps the file open to read answers from; it
// is closed when the index is garbage.
func readIndex(src tape.Source, opts []tape.Option) (*index, error) {
	idx, _, err := readIndexWith(src, opts, nil, false)
	return idx, err
}

// keptTape is every message of a tape as its reader gave them, and the
// reader's warnings: what the mock read, for the replay (see
// Mock.StreamTape, of a tape it reads whole first, and Mock.TakeTape).
// The messages are kept in chunks of keptChunk, never copied as they
// grow.
type keptTape struct {
	chunks   [][]tape.Message
	warnings []string
}

const keptChunk = 4096

func (k *keptTape) add(m tape.Message) {
	if n := len(k.chunks); n == 0 || len(k.chunks[n-1]) == keptChunk {
		k.chunks = append(k.chunks, make([]tape.Message, 0, keptChunk))
	}
	last := &k.chunks[len(k.chunks)-1]
	*last = append(*last, m)
}

// next returns a function that gives k's messages in order, once each,
// then false; each is let go of as it is given.
func (k *keptTape) next() func() (tape.Message, bool) {
	chunks := k.chunks
	k.chunks = nil
	i := 0
	return func() (tape.Message, bool) {
		for len(chunks) > 0 && i == len(chunks[0]) {
			chunks[0], chunks, i = nil, chunks[1:], 0
		}
		if len(chunks) == 0 {
			return tape.Message{}, false
		}
		m := chunks[0][i]
		chunks[0][i] = tape.Message{}
		i++
		return m, true
	}
}

// keepUpTo bounds the tape whose messages the mock keeps for the replay:
// a larger one is read by each (a native tape of more than readBackOver
// is then read back from its file, which costs less memory).
var keepUpTo int64 = 256 << 20

// readIndexWith is readIndex, for a Server when sv is not nil. With keep
// (run's mock only) it also keeps every message it reads, and its
// reader's warnings, unless the tape is larger than keepUpTo: the index
// then has every answer in memory, none to read back from the file.
func readIndexWith(src tape.Source, opts []tape.Option, sv *serveBuild, keep bool) (*index, *keptTape, error) {
	r, err := tape.OpenSource(src, opts...)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	b := builder{serve: sv, lazy: sv == nil}
	var lasts *lastSeqs
	if sv == nil {
		lasts = &lastSeqs{}
	}
	file := src
	if sh, ok := src.(*tape.Shared); ok {
		file = sh.Source()
	}
	var kept *keptTape
	var keptBytes int64
	if keep {
		kept = &keptTape{}
	}
	if path, isFile := file.(tape.File); isFile && r.Format() == tape.FormatNative {
		if b.file, err = os.Open(string(path)); err != nil {
			return nil, nil, fmt.Errorf("mock: %w", err)
		}
		fi, err := b.file.Stat()
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > keepUpTo {
			kept = nil
		}
		if err != nil || !fi.Mode().IsRegular() || fi.Size() <= readBackOver || kept != nil {
			b.file.Close()
			b.file = nil
		}
	}
	for {
		msg, err := r.Next()
		if errors.Is(err, io.EOF) {
			idx := b.index()
			idx.lasts, idx.messages = lasts.done(), lasts.count()
			if kept != nil {
				kept.warnings = r.Warnings()
			}
			return idx, kept, nil
		}
		if err != nil {
			if b.file != nil {
				b.file.Close()
			}
			return nil, nil, fmt.Errorf("mock: %w", err)
		}
		if lasts != nil {
			lasts.note(msg.Session, msg.Seq)
		}
		if kept != nil { // a source of no known size is bounded as it is read
			if keptBytes += int64(len(msg.Msg)); keptBytes > keepUpTo {
				kept = nil
			} else {
				kept.add(msg)
			}
		}
		if b.file != nil {
			off, n, ok := r.LineSpan()
			if !ok {
				b.file.Close()
				return nil, nil, fmt.Errorf("mock: tape %s: message seq %d: no line to read it back from", src.Name(), msg.Seq)
			}
			b.addAt(msg, off, n)
		} else {
			b.add(msg)
		}
	}
}

// readBackOver is the size of the smallest native tape whose answers are
// read back from the file: a smaller one's are copied into memory, which
// costs less than its size and answers faster (no read, no decoding).
var readBackOver int64 = 32 << 20

// lastSeqs is each session's last seq on a tape, noted message by
// message: the map is written when the session changes (and at the
// end), not for every message.
type lastSeqs struct {
	m    map[string]int64
	name string // the session of the messages noted last
	seq  int64
	any  bool
	n    int64 // messages noted
}

// note notes that the message seq of session was read.
func (l *lastSeqs) note(session string, seq int64) {
	if l.any && session != l.name {
		l.flush()
	}
	l.name, l.seq, l.any = session, seq, true
	l.n++
}

// count is how many messages were noted (0 from a nil l).
func (l *lastSeqs) count() int64 {
	if l == nil {
		return 0
	}
	return l.n
}

func (l *lastSeqs) flush() {
	if l.m == nil {
		l.m = map[string]int64{}
	}
	l.m[l.name] = l.seq
}

// done returns every session's last seq (an empty map for a tape of no
// message; nil from a nil l: none noted).
func (l *lastSeqs) done() map[string]int64 {
	if l == nil {
		return nil
	}
	if l.any {
		l.flush()
	} else if l.m == nil {
		l.m = map[string]int64{}
	}
	return l.m
}

// builder indexes a tape's messages, given in tape order.
type builder struct {
	sessions map[string]*building
	// cur is the session of the message indexed last (most messages are
	// of the same session as the one before them), and curName its name.
	cur        *building
	curName    string
	methods    map[string]uint32
	lastMethod string // the method of the request indexed last …
	lastIndex  uint32 // … and its entry.method
	notes      []note
	noteRuns   []noteRun
	big        []span
	file       *os.File
	mem        chunks // the messages kept, while the tape is read
	canon      canon
	entries    int
	serve      *serveBuild // nil: run's mock
	// lazy leaves the params of requests unhashed (run's mock, the tape
	// in memory): they are copied into mem, and hashed the first time a
	// request is not matched by its bytes (see index.canonical).
	lazy     bool
	noteInfo []noteInfo
	order    []string
	// staged (a streamed read's builder) keeps answers in their
	// session's answered, and the sessions changed in dirty, until
	// publish: the entries its connections read are written only then.
	staged bool
	dirty  []*building
	// read, when not nil, says how much of the tape is read, from 0 to
	// 1 (a streamed read's: see stream): a session's entries then grow
	// to about their final count (see growEntries).
	read func() float64
}

// building is a session's part of the index while it is built.
type building struct {
	// unanswered holds, by request id (idKey), the indexes of the
	// session's requests still waiting for an answer.
	unanswered map[uint64]waiting
	entries    []entry
	notes      []note // server notifications since the session's last answer
	info       []entryInfo
	noteInfos  []noteInfo
	asides     []aside        // a Server's: see aside
	heard      int            // a Server's: the client's messages so far
	name       string         // the session's (for publish)
	dirty      bool           // in builder.dirty
	answered   []stagedAnswer // not written yet (see builder.stage)
}

// idKey is a request id as a map key: its jsonrpc.IDKey, so that
// indexing a request and its answer allocates no key. An id of at most
// 7 bytes without escapes (most ids: `12`, `"a1"`) is its bytes and
// their count, exactly; a longer one the hash of its IDKey.
func idKey(id []byte) uint64 {
	if n := len(id); n > 0 && (isSpace(id[0]) || isSpace(id[n-1])) {
		id = bytes.TrimSpace(id)
	}
	if len(id) >= 2 && id[0] == '"' && bytes.IndexByte(id, '\\') >= 0 { // escapes: resolved as IDKey does
		id = []byte(jsonrpc.IDKey(id))
	}
	if len(id) <= 7 {
		k := uint64(len(id)) << 56
		for i, c := range id {
			k |= uint64(c) << (8 * i)
		}
		return k
	}
	return maphash.Bytes(hashSeed, id) // IDKey's bytes
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// session returns the part of the index of the session named name,
// started if it is new.
func (b *builder) session(name string) *building {
	if b.cur != nil && name == b.curName {
		return b.cur
	}
	s := b.sessions[name]
	if s == nil {
		s = &building{unanswered: map[uint64]waiting{}, name: name}
		b.sessions[name] = s
		b.order = append(b.order, name)
	}
	b.cur, b.curName = s, name
	return s
}

// method returns the entry.method of a request's method name.
func (b *builder) method(name string) uint32 {
	if name == b.lastMethod && len(b.methods) > 0 {
		return b.lastIndex
	}
	method, ok := b.methods[name]
	if !ok {
		method = uint32(len(b.methods))
		b.methods[name] = method
	}
	b.lastMethod, b.lastIndex = name, method
	return method
}

// waiting is the indexes of the requests with one id waiting for an
// answer: the latest, and those before it (rarely any: a slice only
// then).
type waiting struct {
	latest  int
	earlier []int
}

// add indexes one message of a tape read into memory, keeping a copy of
// what it needs.
func (b *builder) add(msg tape.Message) {
	b.addAt(msg, -1, 0)
}

// addAt indexes one message: a client request becomes an entry; a server
// answer goes to the latest request of its session with its id and no
// answer yet, with the server notifications recorded since the last
// answer. Everything else is dropped, as are messages that are not
// JSON-RPC. off and n say where msg's line is in b.file; without a file
// they are not used, and the messages kept are copied into b.mem.
func (b *builder) addAt(msg tape.Message, off int64, n int) {
	rpc, err := msg.RPC() // the reader's parse
	if err != nil {
		return
	}
	if b.sessions == nil {
		b.sessions = map[string]*building{}
		b.methods = map[string]uint32{}
	}
	if s := b.sessions[msg.Session]; s != nil && b.serve != nil && msg.Dir == tape.C2S && rpc.Kind != jsonrpc.KindRequest {
		s.heard++ // a notification or an answer: counted, not indexed
	}
	switch {
	case msg.Dir == tape.C2S && rpc.Kind == jsonrpc.KindRequest:
	case msg.Dir == tape.S2C && (rpc.Kind == jsonrpc.KindResponse || rpc.Kind == jsonrpc.KindError || rpc.Kind == jsonrpc.KindNotification):
	case msg.Dir == tape.S2C && rpc.Kind == jsonrpc.KindRequest && b.serve != nil: // sent to the live client
	default:
		return // a client's notification or answer, a server's request, a batch: never matched
	}
	s := b.session(msg.Session)
	if b.serve != nil && msg.Dir == tape.C2S {
		s.heard++
	}
	answer := msg.Dir == tape.S2C && jsonrpc.IsResponseKind(rpc.Kind)
	var k uint64
	var w waiting
	var waits bool // a request of the session with this id waits for its answer
	if answer || msg.Dir == tape.C2S {
		k = idKey(rpc.ID)
		if w, waits = s.unanswered[k]; !waits && answer {
			return // an answer to no request of the session: dropped, not copied
		}
	}
	if (msg.Dir == tape.S2C || b.serve != nil) && b.file == nil {
		off, n = b.mem.add(msg.Msg), len(msg.Msg)
	}
	switch {
	case msg.Dir == tape.C2S:
		method := b.method(rpc.Method)
		if waits {
			s.unanswered[k] = waiting{len(s.entries), append(w.earlier, w.latest)}
		} else {
			s.unanswered[k] = waiting{latest: len(s.entries)}
		}
		var params uint64
		var req loc
		switch p := rpc.Params(); {
		case tape.HasMarker(p): // a redacted request: any params of its method
			params = anyParams
		case b.serve != nil:
			params = b.serve.hash(&b.canon, rpc.Method, p)
		case b.lazy && b.file == nil && len(p) > 0:
			req = b.loc(b.mem.add(p), len(p))
		default:
			params = b.canon.hash(p)
		}
		var raw uint64
		if b.serve == nil && params != anyParams {
			raw = rawHash(rpc.Params())
		}
		if len(s.entries) == cap(s.entries) {
			b.growEntries(s)
		}
		s.entries = append(s.entries, entry{seq: msg.Seq, method: method, params: params, raw: raw, req: req})
		if b.staged {
			b.touch(s)
		}
		if b.serve != nil {
			s.info = append(s.info, entryInfo{req: b.loc(off, n), t: msg.TUS})
		}
		b.entries++
	case answer: // one the session waits for (see above)
		at := w.latest
		if n := len(w.earlier); n == 0 {
			delete(s.unanswered, k)
		} else {
			s.unanswered[k] = waiting{w.earlier[n-1], w.earlier[:n-1]}
		}
		a := stagedAnswer{at: at, ans: b.loc(off, n)}
		if start, end, ok := rpc.IDSpan(); ok && b.file == nil && b.serve == nil && end <= math.MaxUint32 {
			a.idAt, a.idEnd = uint32(start), uint32(end) // in b.mem, the message is a copy of msg.Msg
		}
		if b.serve != nil {
			s.info[at].tAns = msg.TUS
		}
		if len(s.notes) > 0 {
			b.noteRuns = append(b.noteRuns, noteRun{uint32(len(b.notes)), uint32(len(s.notes))})
			a.notes = uint32(len(b.noteRuns))
			b.notes = append(b.notes, s.notes...)
			b.noteInfo = append(b.noteInfo, s.noteInfos...)
			s.notes = s.notes[:0]
			s.noteInfos = s.noteInfos[:0]
		}
		b.stage(s, a)
	case b.serve != nil && rpc.Kind == jsonrpc.KindRequest && len(s.unanswered) == 0:
		s.asides = append(s.asides, aside{after: s.heard, seq: msg.Seq, at: b.loc(off, n)})
	default: // a notification, or (for a Server) a request to the client
		s.notes = append(s.notes, note{seq: msg.Seq, at: b.loc(off, n)})
		if b.serve != nil {
			s.noteInfos = append(s.noteInfos, noteInfo{t: msg.TUS, ask: rpc.Kind == jsonrpc.KindRequest})
		}
	}
}

// growEntries makes room in s.entries for more entries: twice as many
// (append grows a large slice by a quarter, allocating about five times
// its final size on the way, each step copied); or, when b knows how
// much of the tape is read and that many would be more than the session
// will have at the end if the rest of the tape is like what was read
// (5% more), that many, but at least half as many again. So a session
// never grows past what doubling would give it, and one spread evenly
// over the tape ends within 5% of its count, which index then keeps as
// it is (it copied them when doubling left more than a quarter unused).
func (b *builder) growEntries(s *building) {
	n := len(s.entries)
	more := max(n, 16)
	if b.read != nil && n >= 1024 {
		if f := b.read(); f > 0 && f < 1 {
			more = min(max(int(float64(n)/f*1.05)-n, n/2), n)
		}
	}
	grown := make([]entry, n, n+more) // not slices.Grow: append's growth would round more up by a quarter
	copy(grown, s.entries)
	s.entries = grown
}

// loc returns the loc of the message of n bytes at off.
func (b *builder) loc(off int64, n int) loc {
	if n < locBig && off < 1<<(64-locBits) {
		return loc(off)<<locBits | loc(n)
	}
	b.big = append(b.big, span{off, n})
	return loc(len(b.big)-1)<<locBits | locBig
}

// index returns what was built, each session's entries carved from one
// array of the exact size (a tape of one session keeps its own).
func (b *builder) index() *index {
	b.writeAnswered() // a staged builder's since its last publish
	idx := &index{sessions: make(map[string][]entry, len(b.sessions)), methods: b.methods,
		notes: slices.Clip(b.notes), noteRuns: slices.Clip(b.noteRuns), big: b.big, file: b.file, mem: b.mem}
	if b.serve != nil {
		idx.info = make(map[string][]entryInfo, len(b.sessions))
		for name, s := range b.sessions {
			idx.info[name] = slices.Clip(s.info)
		}
		idx.noteInfo = slices.Clip(b.noteInfo)
		idx.order = b.order
		for name, s := range b.sessions {
			if len(s.asides) > 0 {
				if idx.asides == nil {
					idx.asides = map[string][]aside{}
				}
				idx.asides[name] = slices.Clip(s.asides)
			}
		}
	}
	if len(b.sessions) == 1 {
		for name, s := range b.sessions {
			es := s.entries
			if cap(es) > len(es)+len(es)/4 { // not to keep up to twice its size
				es = slices.Clone(es)
			}
			idx.sessions[name] = es[:len(es):len(es)]
		}
		return idx
	}
	all := make([]entry, 0, b.entries)
	for name, s := range b.sessions {
		start := len(all)
		all = append(all, s.entries...)
		idx.sessions[name] = all[start:len(all):len(all)]
	}
	return idx
}

// errRead is a recorded message that could not be read back.
var errRead = errors.New("the tape changed since it was read")

// notesOf returns the notes of e.
func (idx *index) notesOf(e *entry) []note {
	if e.notes == 0 {
		return nil
	}
	r := idx.noteRuns[e.notes-1]
	return idx.notes[r.first : r.first+r.n]
}

// at returns the message at l, the recorded one with seq if seq ≥ 0. Read
// from the file (its line is read and decoded), it is read into *buf, and
// aliases it.
func (idx *index) at(l loc, seq int64, buf *[]byte) ([]byte, error) {
	return idx.atDir(l, seq, tape.S2C, buf)
}

// atDir is at for a message recorded in direction dir.
func (idx *index) atDir(l loc, seq int64, dir tape.Dir, buf *[]byte) ([]byte, error) {
	sp := idx.span(l)
	if idx.file == nil {
		return idx.mem.at(sp.off, sp.n), nil
	}
	if cap(*buf) < sp.n {
		*buf = make([]byte, sp.n)
	}
	line := (*buf)[:sp.n]
	if _, err := idx.file.ReadAt(line, sp.off); err != nil {
		return nil, err
	}
	m, err := tape.DecodeLine(line)
	if err != nil || (seq >= 0 && m.Seq != seq) || m.Dir != dir {
		return nil, errRead
	}
	return m.Msg, nil
}
