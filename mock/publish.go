package mock

import "maps"

// stagedAnswer is what indexing an answer writes into its request's
// entry. A streamed read's builder (staged) keeps these, in the
// answer's session, until it publishes, so that the entries its
// connections read change only then.
type stagedAnswer struct {
	at          int // the entry's index in the session's entries
	ans         loc
	notes       uint32
	idAt, idEnd uint32
}

// write writes a into its entry, of es.
func (a *stagedAnswer) write(es []entry) {
	e := &es[a.at]
	e.ans, e.notes, e.idAt, e.idEnd = a.ans, a.notes, a.idAt, a.idEnd
}

// stage keeps a for publish, or writes it now if b is not staged.
func (b *builder) stage(s *building, a stagedAnswer) {
	if !b.staged {
		a.write(s.entries)
		return
	}
	s.answered = append(s.answered, a)
	b.touch(s)
}

// touch notes that s changed since the last publish.
func (b *builder) touch(s *building) {
	if !s.dirty {
		s.dirty = true
		b.dirty = append(b.dirty, s)
	}
}

// writeAnswered writes the answers kept since the last publish.
func (b *builder) writeAnswered() {
	for _, s := range b.dirty {
		for i := range s.answered {
			s.answered[i].write(s.entries)
		}
		s.answered = s.answered[:0]
	}
}

// published is the part of a streamed read's index its connections
// read (see reading.viewOf, reading.entriesOf): a copy of the builder's
// slice headers, maps and chunks as they were at the builder's last
// publish. The builder goes on adding past them without a lock: slices
// and chunks only ever grow (a grown slice is a new array, the old one
// left as it was), a new method or session makes a new map, and the
// entries' answers are written in publish.
type published struct {
	methods  map[string]uint32
	sessions map[string][]entry
	notes    []note
	noteRuns []noteRun
	big      []span
	mem      chunks
}

// publish makes everything b indexed so far what p's readers see. It is
// called with the lock p's readers hold; the rest of b is written
// without it, by b's one goroutine.
func (b *builder) publish(p *published) {
	b.writeAnswered()
	if len(p.methods) != len(b.methods) {
		p.methods = maps.Clone(b.methods)
	}
	if p.sessions == nil {
		p.sessions = map[string][]entry{}
	}
	for _, s := range b.dirty {
		p.sessions[s.name] = s.entries
		s.dirty = false
	}
	clear(b.dirty)
	b.dirty = b.dirty[:0]
	p.notes, p.noteRuns, p.big, p.mem = b.notes, b.noteRuns, b.big, b.mem
}
