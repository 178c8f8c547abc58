package report

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// HistogramsVersion is the version of the report's "histograms" section
// that this package writes and merges. A report with another version is
// refused by [Merge].
//
// Version 2 added the histograms of each method and name (per_method,
// per_name) and left the handshake's latency out of latency and
// latency_from_intended unless the report's handshake.included says
// otherwise; a version 1 report cannot be split so.
const HistogramsVersion = 2

// HistogramEncoding names how each histogram of the section is written:
// HdrHistogram's V2 compressed encoding (zlib), in standard base64, as
// every HdrHistogram library reads it.
const HistogramEncoding = "hdr-v2-compressed-base64"

// ErrHistogram is wrapped by every error about a histogram of a report:
// corrupt base64 or zlib data, another configuration, counts that do not
// add up.
var ErrHistogram = errors.New("report: bad histogram")

// HistogramConfig is the geometry of a histogram. Every histogram of every
// report has the one configuration [Histograms.Config] gives, so that
// merging adds bucket to bucket and drops nothing.
type HistogramConfig struct {
	Unit              string `json:"unit"`               // "us": values are microseconds
	Lowest            int64  `json:"lowest"`             // lowest discernible value
	Highest           int64  `json:"highest"`            // highest trackable value
	SignificantDigits int    `json:"significant_digits"` // precision of each bucket
}

// histConfig is the one configuration: microseconds from 1µs to 1h, 3
// significant digits.
var histConfig = HistogramConfig{Unit: "us", Lowest: histLowestUS, Highest: histHighestUS, SignificantDigits: histDigits}

// Histograms is the report's "histograms" section: the distributions of
// [Performance] without loss, and what else a merge of reports needs to
// compute the merged figures exactly as one replay would have.
type Histograms struct {
	Version  int             `json:"version"`
	Encoding string          `json:"encoding"`
	Config   HistogramConfig `json:"config"`
	// The four distributions of the performance section, by the same
	// names without the "_ms".
	Latency             EncodedHistogram `json:"latency"`
	LatencyFromIntended EncodedHistogram `json:"latency_from_intended"`
	ScheduleLag         EncodedHistogram `json:"schedule_lag"`
	Held                EncodedHistogram `json:"held"`
	// Late counts the client messages sent more than LateAfter late, paced
	// or not (load.late shows it for paced replays only).
	Late int64 `json:"late"`
	// RequestsDue and RequestsSent are the due and send times of the
	// client requests after the handshake: the load section's rates.
	RequestsDue  TimeSpan `json:"requests_due"`
	RequestsSent TimeSpan `json:"requests_sent"`
	// MessagesDue and MessagesSent are those of every client request and
	// notification sent, the handshake's too: the load section's rates
	// at the speeds that pace by count (fixed:, rps:), where each takes a
	// ticket. Absent from reports of older versions (count 0).
	MessagesDue  TimeSpan `json:"messages_due,omitzero"`
	MessagesSent TimeSpan `json:"messages_sent,omitzero"`
	// PerMethod and PerName are the latency histograms of the report's
	// per_method and per_name lines that have one (a request answered),
	// in the same order.
	PerMethod []GroupHistogram `json:"per_method"`
	PerName   []GroupHistogram `json:"per_name"`
}

// GroupHistogram is the latency histogram of one method (Name empty) or
// one name.
type GroupHistogram struct {
	Method  string           `json:"method"`
	Name    string           `json:"name,omitempty"`
	Latency EncodedHistogram `json:"latency"`
}

// EncodedHistogram is one histogram of durations in microseconds, with the
// exact count, sum, min and max beside the HDR buckets (which hold each
// value within 3 significant digits).
type EncodedHistogram struct {
	Count   int64 `json:"count"`
	SumUS   int64 `json:"sum_us"`
	MinUS   int64 `json:"min_us"`
	MaxUS   int64 `json:"max_us"`
	Clamped int64 `json:"clamped"` // values outside 0..1h, clamped into it
	// HDR is the histogram in [HistogramEncoding].
	HDR string `json:"hdr"`
}

// TimeSpan is a count of times and the first and last of them.
type TimeSpan struct {
	Count int64     `json:"count"`
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}

// histograms encodes what c collected for the report.
func (c *Collector) histograms() Histograms {
	return Histograms{
		Version:             HistogramsVersion,
		Encoding:            HistogramEncoding,
		Config:              histConfig,
		Latency:             c.latency.encode(),
		LatencyFromIntended: c.intended.encode(),
		ScheduleLag:         c.lag.encode(),
		Held:                c.held.encode(),
		Late:                c.late,
		RequestsDue:         c.reqDue.export(),
		RequestsSent:        c.reqSent.export(),
		MessagesDue:         c.msgDue.export(),
		MessagesSent:        c.msgSent.export(),
		PerMethod:           groupHistograms(c.methods),
		PerName:             groupHistograms(c.names),
	}
}

// groupHistograms encodes the latency histograms of the groups of m that
// have one, by method then name.
func groupHistograms(m map[groupKey]*group) []GroupHistogram {
	out := []GroupHistogram{}
	for _, k := range sortedKeys(m) {
		if g := m[k]; g.latency != nil {
			out = append(out, GroupHistogram{Method: k.method, Name: k.name, Latency: g.latency.encode()})
		}
	}
	return out
}

// encode writes h without loss.
func (h *hist) encode() EncodedHistogram {
	return EncodedHistogram{Count: h.count, SumUS: h.sumUS, MinUS: h.minUS, MaxUS: h.maxUS, Clamped: h.clamped, HDR: encodeHDR(h.h)}
}

// encodeHDR writes h in [HistogramEncoding], byte for byte as
// hdrhistogram-go's Encode does (TestEncodeHDRAsTheLibrary), with a zlib
// writer taken from a pool where Encode makes one per histogram: at
// BestCompression a writer is about 800 KB, more than all else a replay of
// a thousand requests allocates for its report.
func encodeHDR(h *hdrhistogram.Histogram) string { return encodeCounts(h.Export()) }

// HdrHistogram's V2 encoding: the cookies of the compressed whole and of
// the uncompressed header before the counts.
const (
	hdrCompressedCookie = hdrhistogram.V2CompressedEncodingCookieBase | 0x10
	hdrCookie           = hdrhistogram.V2EncodingCookieBase | 0x10
)

// hdrEncoder is what encoding one histogram needs, pooled.
type hdrEncoder struct {
	raw  []byte // the uncompressed header and counts
	out  bytes.Buffer
	zlib *zlib.Writer
}

var hdrEncoders = sync.Pool{New: func() any {
	e := &hdrEncoder{}
	// Cannot fail: BestCompression is a valid level.
	e.zlib, _ = zlib.NewWriterLevel(&e.out, zlib.BestCompression)
	return e
}}

// encodeCounts writes the histogram s holds: its header, then its counts
// up to the highest one recorded, each a ZigZag LEB128 number and each run
// of zeros one negative number, compressed with zlib; the compressed length
// and data after the cookie, in base64.
func encodeCounts(s *hdrhistogram.Snapshot) string {
	e := hdrEncoders.Get().(*hdrEncoder)
	defer hdrEncoders.Put(e)
	limit := 1 // the library writes counts[0] of an empty histogram
	for i := len(s.Counts) - 1; i > 0; i-- {
		if s.Counts[i] != 0 {
			limit = i + 1
			break
		}
	}
	counts := e.raw[:0]
	for i := 0; i < limit; {
		c := s.Counts[i]
		i++
		if c != 0 {
			counts = appendZigZag(counts, c)
			continue
		}
		zeros := int64(1)
		for i < limit && s.Counts[i] == 0 {
			zeros++
			i++
		}
		if zeros > 1 {
			counts = appendZigZag(counts, -zeros)
		} else {
			counts = appendZigZag(counts, 0)
		}
	}
	// The header goes before the counts: make room for it, then move them.
	const header = 40
	n := len(counts)
	raw := append(counts, make([]byte, header)...)
	copy(raw[header:], raw[:n])
	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	binary.BigEndian.PutUint32(raw[0:], uint32(hdrCookie))
	binary.BigEndian.PutUint32(raw[4:], uint32(n))
	binary.BigEndian.PutUint32(raw[8:], 0) // the normalizing index offset: none
	binary.BigEndian.PutUint32(raw[12:], uint32(s.SignificantFigures))
	binary.BigEndian.PutUint64(raw[16:], uint64(s.LowestTrackableValue))
	binary.BigEndian.PutUint64(raw[24:], uint64(s.HighestTrackableValue))
	binary.BigEndian.PutUint64(raw[32:], math.Float64bits(ratio))
	e.raw = raw

	e.out.Reset()
	var lead [8]byte
	e.out.Write(lead[:]) // the cookie and the compressed length, below
	e.zlib.Reset(&e.out)
	// Writing into memory cannot fail.
	_, _ = e.zlib.Write(raw)
	_ = e.zlib.Close()
	b := e.out.Bytes()
	binary.BigEndian.PutUint32(b[0:], uint32(hdrCompressedCookie))
	binary.BigEndian.PutUint32(b[4:], uint32(len(b)-8))
	return base64.StdEncoding.EncodeToString(b)
}

// appendZigZag appends v as HdrHistogram writes a count: ZigZag, then
// LEB128 of at most 9 bytes, the ninth holding 8 bits.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}

// decode reads e back into a histogram, checking that it has the one
// configuration and that its parts agree. Errors wrap [ErrHistogram].
func (e EncodedHistogram) decode() (hist, error) {
	if e.HDR == "" {
		return hist{}, errorf(ErrHistogram, "hdr is missing")
	}
	if err := checkHeader(e.HDR); err != nil {
		return hist{}, err
	}
	h, err := hdrhistogram.Decode([]byte(e.HDR))
	if err != nil {
		return hist{}, errorf(ErrHistogram, "hdr: %v", err)
	}
	out := hist{h: h, count: e.Count, sumUS: e.SumUS, minUS: e.MinUS, maxUS: e.MaxUS, clamped: e.Clamped}
	if err := out.check(); err != nil {
		return hist{}, err
	}
	return out, nil
}

// check reports whether the exact figures beside the buckets agree with
// them.
func (h *hist) check() error {
	bad := func(format string, a ...any) error {
		return errorf(ErrHistogram, format, a...)
	}
	switch total := h.h.TotalCount(); {
	case h.count < 0 || h.clamped < 0 || h.sumUS < 0:
		return bad("count %d, clamped %d, sum_us %d: none may be negative", h.count, h.clamped, h.sumUS)
	case total != h.count:
		return bad("hdr holds %d values and count says %d", total, h.count)
	case h.clamped > h.count:
		return bad("clamped %d is more than count %d", h.clamped, h.count)
	case h.count == 0:
		if h.sumUS != 0 || h.minUS != 0 || h.maxUS != 0 {
			return bad("no values, yet sum_us %d, min_us %d, max_us %d", h.sumUS, h.minUS, h.maxUS)
		}
		return nil
	case h.minUS < 0 || h.minUS > h.maxUS || h.maxUS > histHighestUS:
		return bad("min_us %d and max_us %d: want 0 <= min_us <= max_us <= %d", h.minUS, h.maxUS, histHighestUS)
	case !h.h.ValuesAreEquivalent(h.h.Min(), h.minUS) || !h.h.ValuesAreEquivalent(h.h.Max(), h.maxUS):
		return bad("min_us %d and max_us %d are not in the histogram's lowest and highest buckets (%d, %d)", h.minUS, h.maxUS, h.h.Min(), h.h.Max())
	case h.sumUS/h.count < h.minUS || h.sumUS/h.count > h.maxUS:
		return bad("sum_us %d over %d values is not between min_us %d and max_us %d", h.sumUS, h.count, h.minUS, h.maxUS)
	}
	return nil
}

// checkHeader reads the configuration in the header of an encoded
// histogram and refuses one other than histConfig, before the histogram
// is decoded: the decoder allocates the buckets the header asks for.
func checkHeader(encoded string) error {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return errorf(ErrHistogram, "hdr is not standard base64: %v", err)
	}
	if len(raw) < 8 {
		return errorf(ErrHistogram, "hdr is %d bytes, too short for the V2 header", len(raw))
	}
	if cookie := int32(binary.BigEndian.Uint32(raw)) &^ 0xf0; cookie != hdrhistogram.V2CompressedEncodingCookieBase {
		return errorf(ErrHistogram, "hdr is not in HdrHistogram's V2 compressed encoding (cookie %#x)", uint32(cookie))
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		return errorf(ErrHistogram, "hdr: compressed data: %v", err)
	}
	defer z.Close()
	var header [40]byte
	if _, err := io.ReadFull(z, header[:]); err != nil {
		return errorf(ErrHistogram, "hdr: compressed header: %v", err)
	}
	got := HistogramConfig{
		Unit:              histConfig.Unit,
		SignificantDigits: int(int32(binary.BigEndian.Uint32(header[12:]))),
		Lowest:            int64(binary.BigEndian.Uint64(header[16:])),
		Highest:           int64(binary.BigEndian.Uint64(header[24:])),
	}
	if got != histConfig {
		return errorf(ErrHistogram, "hdr has lowest %d, highest %d, %d significant digits; every report's histograms must have lowest %d, highest %d, %d digits, as this replayctl writes them",
			got.Lowest, got.Highest, got.SignificantDigits, histConfig.Lowest, histConfig.Highest, histConfig.SignificantDigits)
	}
	return nil
}

func (s timeSpan) export() TimeSpan { return TimeSpan{Count: s.n, First: s.first, Last: s.last} }

// span reads s back, checking that it is one.
func (s TimeSpan) span() (timeSpan, error) {
	switch {
	case s.Count < 0:
		return timeSpan{}, fmt.Errorf("count %d is negative", s.Count)
	case s.Count > 0 && (s.First.IsZero() || s.Last.IsZero() || s.Last.Before(s.First)):
		return timeSpan{}, fmt.Errorf("count %d needs a first time no later than the last", s.Count)
	}
	return timeSpan{n: s.Count, first: s.First, last: s.Last}, nil
}
