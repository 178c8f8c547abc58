package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/internal/jsonscan"
)

// WriteFrozen writes the page, frozen with the run as the server has it:
// every frame of its journal, the run's verdict (Finish first) and the
// messages kept for the detail view, in one HTML file that needs no
// server (the page reads them instead of its feed). Call it when the run
// has ended.
func (s *Server) WriteFrozen(w io.Writer) error {
	s.j.seal()
	frames, names, lost := s.j.after(0)
	s.mu.Lock()
	result := s.result
	s.mu.Unlock()
	h := hello{Names: names, Lost: lost, Title: s.title, Thresholds: s.thresholds,
		State: orNull(nil), Result: orNull(result)}
	if h.Names == nil {
		h.Names = []string{}
	}
	if h.Thresholds == nil {
		h.Thresholds = []string{}
	}
	var b bytes.Buffer
	b.WriteString("<script>window.REPLAYCTL_FROZEN={\"hello\":")
	hb, err := json.Marshal(h) // HTML-escaped: no "</script>" survives in it
	if err != nil {
		return err
	}
	b.Write(hb)
	b.WriteString(",\"frames\":[")
	for i, f := range frames {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(f.data) // strings escaped by appendString: no '<'
	}
	b.WriteString("],\"messages\":{")
	s.bodies.mu.Lock()
	kept := append([]kept(nil), s.bodies.kept...)
	s.bodies.mu.Unlock()
	for i, k := range kept {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonscan.AppendHTMLString(nil, k.r.Session+"\x00"+strconv.FormatInt(k.r.Seq, 10)))
		b.WriteByte(':')
		d, err := json.Marshal(detailOf(k))
		if err != nil {
			return fmt.Errorf("message %s seq %d: %w", k.r.Session, k.r.Seq, err)
		}
		b.Write(d)
	}
	b.WriteString("}};</script>")
	page := bytes.Replace(s.page, []byte("<!--FROZEN-->"), b.Bytes(), 1)
	_, err = w.Write(page)
	return err
}

// SaveFrozen writes WriteFrozen's page to path atomically (a synced
// temporary file renamed into place).
func (s *Server) SaveFrozen(path string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("page %s: create temporary file (is the directory there and writable?): %w", path, err)
	}
	if err := s.WriteFrozen(f); err != nil {
		f.Abort()
		return fmt.Errorf("page %s: write: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("page %s: %w", path, err)
	}
	return nil
}
