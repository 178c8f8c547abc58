package tape

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"
)

// Importer is a foreign tape format: it tells its files by their content
// and reads them into messages. Open asks the registered importers of each
// Stage in turn, in the order of the stages, whether the file is theirs;
// the first that says yes imports it. The importers of one stage tell
// files apart (no two claim the same file), so the order among them does
// not matter.
//
// Adding a format is one file: the importer, and an init that calls
// Register.
type Importer interface {
	// Format names the format, as Reader.Format reports it.
	Format() Format
	// Stage says when Open asks Detect.
	Stage() Stage
	// Detect reports whether the file, as p shows it, is of this format.
	// It reads nothing from p but what p holds.
	Detect(p *Probe) bool
	// Import reads the file into messages. Bad input is an *Error.
	Import(p *Probe) (*Imported, error)
}

// Stage is when, while a file is opened, an Importer is asked whether the
// file is of its format.
type Stage int

const (
	// StageMagic: by the file's first bytes (Probe.Magic), before any line
	// is read, e.g. a packet capture.
	StageMagic Stage = iota
	// StageLine: by the first non-blank line (Probe.First), before the
	// native reader judges it, e.g. a JSON-RPC log or a YAML transcript.
	StageLine
	// StageDocument: a JSON document that is not a native tape, by its
	// first member (Probe.First and Probe.Head) and, if none claims it so,
	// again once it is read whole (Probe.Whole), e.g. a HAR file.
	StageDocument
)

// Imported is what an Importer read: a header synthesized from what the
// file says, the messages, and warnings that say what was left out.
type Imported struct {
	Header   Header
	Warnings []string
	src      importSource
}

// ImportedMessages is an import held in memory: msgs in seq order.
func ImportedMessages(h Header, msgs []Message, warnings []string) *Imported {
	return &Imported{Header: h, Warnings: warnings, src: inMemory(msgs)}
}

var registry struct {
	sync.Mutex
	importers []Importer
}

// Register adds an importer to the ones Open asks. It panics when an
// importer of the same format is registered already: call it from init.
func Register(im Importer) {
	registry.Lock()
	defer registry.Unlock()
	for _, o := range registry.importers {
		if o.Format() == im.Format() {
			panic(fmt.Sprintf("tape: importer of %s registered twice", im.Format()))
		}
	}
	registry.importers = append(registry.importers, im)
	slices.SortStableFunc(registry.importers, func(a, b Importer) int {
		return cmp.Or(cmp.Compare(a.Stage(), b.Stage()), cmp.Compare(a.Format(), b.Format()))
	})
}

// Importers lists the registered importers, by stage and then by format.
func Importers() []Importer {
	registry.Lock()
	defer registry.Unlock()
	return slices.Clone(registry.importers)
}

// Probe is a file being opened, as far as it has been read: what an
// Importer tells its format by and reads the file from.
type Probe struct {
	n     *nativeReader // the file, as far as detection read it
	magic []byte
	stage Stage

	first       []byte // the first non-blank line, from StageLine on
	last        bool   // first is the file's last line
	start, line int64  // where first starts, and its line number
	whole       []byte // the file from first on, in StageDocument's second round

	env   envelope // first's members, scanned once (envOK)
	envAt bool     // env has been scanned
	envOK bool
	valid bool // first is valid JSON, known once env has been scanned

	binAt bool // bin has been looked for
	isBin bool // first holds a byte no text holds (binaryAt)
}

// magicLen is how many of the first bytes Probe.Magic holds: a magic
// number's (pcap's and pcapng's are 4 bytes, gzip's 2). Detection waits
// for no more, so that a capture piped in as it is made is told at once.
const magicLen = 4

// Path is the name the file is opened by, for errors.
func (p *Probe) Path() string { return p.n.r.path }

// Magic is the file's first 4 bytes (fewer in a shorter file), after a
// UTF-8 byte order mark.
func (p *Probe) Magic() []byte { return p.magic }

// First is the first non-blank line, without its newline; nil in
// StageMagic.
func (p *Probe) First() []byte { return p.first }

// Line is First's line number, counted from 1.
func (p *Probe) Line() int64 { return p.line }

// Whole is the file from First on, read whole, in the second round of
// StageDocument; nil before.
func (p *Probe) Whole() []byte { return p.whole }

// Head is what follows First in the file (in StageMagic, the file from
// its start), as far as 4 KiB of it are read already or can be peeked;
// it is not consumed. It waits for those bytes, or the file's end.
func (p *Probe) Head() []byte {
	b, _ := p.n.br.Peek(4096) // what there is: less at the end of the file
	return b
}

// Rest reads the file as it streams: from its start in StageMagic, from
// First on later. Once read, the file is the importer's.
func (p *Probe) Rest() io.Reader {
	if p.stage == StageMagic {
		return p.n.br
	}
	if p.whole != nil {
		return bytes.NewReader(p.whole)
	}
	return p.n.rest(p.first, p.last)
}

// ReadRest returns the file from First on, read whole; what names the
// content in the error of one larger than 512 MiB.
func (p *Probe) ReadRest(what string) ([]byte, error) {
	if p.whole != nil {
		return p.whole, nil
	}
	return p.n.readRest(p.first, p.last, what)
}

// lineBase is the number of the line before First, which importers add
// to the lines they count from First on.
func (p *Probe) lineBase() int64 { return p.line - 1 }

// envelope scans First's members once; ok is false when First is not a
// whole JSON object. The pass also checks First's grammar (valid), so
// that a document on one line is not read again for that (oneLineDoc);
// only a line that is not valid JSON is scanned twice.
func (p *Probe) envelope() (*envelope, bool) {
	if !p.envAt {
		p.envAt = true
		if scanEnvelopeValid(p.first, &p.env) == nil {
			p.envOK, p.valid = true, true
		} else {
			p.envOK = scanEnvelope(p.first, &p.env) == nil
		}
	}
	return &p.env, p.envOK
}

// oneLineDoc is oneLineDoc of First and what follows it, First's grammar
// known from the envelope's pass.
func (p *Probe) oneLineDoc() bool {
	p.envelope()
	return p.valid && nothingAfter(p.last, p.Head())
}

// wholeWithoutDocument reports whether First is a whole JSON object
// without any of the members the built-in document formats need
// ("format_version": Agent VCR, mcp-cassette; "log": HAR;
// "interactions": mcp-recorder). Such a line is asked about by its first
// member only (StageDocument's first round), never read whole as a
// document: detection refuses it, and no importer of a document claims
// it.
func (p *Probe) wholeWithoutDocument() bool {
	env, ok := p.envelope()
	return ok && !env.hasExtra("format_version") && !env.hasExtra("log") && !env.hasExtra("interactions")
}

// binary reports whether First holds a byte that no text tape holds
// (binaryAt), looked for once.
func (p *Probe) binary() bool {
	if !p.binAt {
		p.binAt = true
		_, p.isBin = binaryAt(p.first)
	}
	return p.isBin
}

// importAt asks the importers of stage about the file; done is true when
// one claimed it (err says whether its import failed).
func (r *Reader) importAt(stage Stage, p *Probe) (done bool, err error) {
	p.stage = stage
	for _, im := range Importers() {
		if im.Stage() != stage || !im.Detect(p) {
			continue
		}
		got, err := im.Import(p)
		if err != nil {
			return true, err
		}
		r.warnings = append(r.warnings, got.Warnings...)
		r.setImported(im.Format(), got.Header, got.src)
		return true, nil
	}
	return false, nil
}

// importDocument imports the rest of the file, one JSON document: first
// streamed, if an importer knows it by its first member (as every HAR
// writer and Agent VCR write them), else read whole.
func (r *Reader) importDocument(p *Probe) error {
	p.first = p.n.keepLine(p.first)
	if done, err := r.importAt(StageDocument, p); done {
		return err
	}
	doc, err := p.n.readRest(p.first, p.last, "a JSON document")
	if err != nil {
		return err
	}
	p.whole = doc
	if done, err := r.importAt(StageDocument, p); done {
		return err
	}
	return &Error{Path: r.path, Line: p.line, Seq: -1, Err: ErrUnknownFormat, Msg: notATapeMsg}
}

// decodeFunc is an importer of a JSON document that streams it into a
// store: decodeCassette, decodeRecorder, decodeHAR.
type decodeFunc func(path string, src io.Reader, lineBase int64, store msgStore) (Header, *imported, []string, error)

// importDecoded imports the document with decode: streamed into a spill
// file, or, read whole already, into memory.
func importDecoded(p *Probe, decode decodeFunc) (*Imported, error) {
	if p.whole != nil {
		h, im, warnings, err := decode(p.Path(), bytes.NewReader(p.whole), p.lineBase(), &memStore{})
		if err != nil {
			return nil, err
		}
		return &Imported{Header: h, Warnings: warnings, src: im}, nil
	}
	store, err := newSpillStore(p.Path())
	if err != nil {
		return nil, err
	}
	h, im, warnings, err := decode(p.Path(), p.Rest(), p.lineBase(), store)
	if err != nil {
		store.close()
		return nil, err
	}
	return &Imported{Header: h, Warnings: warnings, src: im}, nil
}
