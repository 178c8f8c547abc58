package report

import (
	"bytes"
	"slices"

	"github.com/replayctl/replayctl/internal/jsonscan"
	"github.com/replayctl/replayctl/tape"
)

// Redacted stands in for a secret value in any output (tape.Masked).
const Redacted = tape.Masked

// Redact returns res with the secrets hidden from what it shows: the
// credentials a tape or a server carries under a secret name masked in
// its messages and differences (tape.Mask, MaskDifferences: a difference
// at or under such a member shows both values as "[redacted]", saying
// that the credential differs, never what it is), then the values r
// knows hidden from its error, differences and messages. r may be nil.
// Judging is done before: Redact is for showing.
func Redact(r *tape.Redactor, res Result) Result {
	out, answer := tape.Mask(res.Out), tape.Mask(res.Answer)
	res.Recorded = maskRecorded(res.Answer, answer, res.Recorded)
	res.Out, res.Answer = out, answer
	res.Differences = MaskDifferences(res.Differences)
	if r == nil {
		return res
	}
	res.Err, res.Name = r.String(res.Err), r.String(res.Name)
	res.Differences = differences(r, res.Differences)
	res.Out, res.Answer, res.Recorded = r.Bytes(res.Out), r.Bytes(res.Answer), r.Bytes(res.Recorded)
	return res
}

// maskRecorded is tape.Mask(recorded), given answer and masked, its mask.
// The common case of a pass is an answer as it was recorded, but for its
// id (a number: the replay's own): then masking it again finds what
// masking the answer found, and the answer's mask serves (issue 24).
func maskRecorded(answer, masked, recorded []byte) []byte {
	if len(answer) == 0 || len(recorded) == 0 {
		return tape.Mask(recorded)
	}
	if bytes.Equal(answer, recorded) {
		return masked
	}
	if unchanged(answer, masked) && sameButNumericID(answer, recorded) {
		// Mask walks both alike: the only bytes that differ are a
		// number's, never a name or in a string.
		return recorded
	}
	return tape.Mask(recorded)
}

// unchanged reports whether masked is doc itself (Mask found nothing).
func unchanged(doc, masked []byte) bool {
	return len(doc) == len(masked) && &doc[0] == &masked[0]
}

// sameButNumericID reports whether a and b are JSON objects alike byte
// for byte but for the values of their top-level "id" members, both
// numbers.
func sameButNumericID(a, b []byte) bool {
	as, ae, ok := numericID(a)
	if !ok {
		return false
	}
	bs, be, ok := numericID(b)
	return ok && bytes.Equal(a[:as], b[:bs]) && bytes.Equal(a[ae:], b[be:])
}

// numericID is where the value of doc's top-level "id" member is, when
// it is a number (its name written plainly).
func numericID(doc []byte) (start, end int, ok bool) {
	_ = jsonscan.Members(doc, func(m jsonscan.Member) bool {
		if m.KeyEscaped || string(m.Key) != "id" {
			return true
		}
		c := doc[m.Start]
		start, end, ok = m.Start, m.End, c == '-' || (c >= '0' && c <= '9')
		return false
	})
	return start, end, ok
}

// RedactReport hides the secrets r knows from rep's texts that come from
// the target, the tape or an error: the target, why it stopped, the
// warnings, the errors, the failures' differences, the chaos notes, the
// names of per_name (a resource's uri may carry a token) and the
// thresholds' details that name them.
func RedactReport(r *tape.Redactor, rep *Report) {
	if r == nil {
		return
	}
	s := &rep.Summary
	s.Target, s.Aborted = r.String(s.Target), r.String(s.Aborted)
	s.Warnings = redactStrings(r, s.Warnings)
	for i := range rep.Errors {
		rep.Errors[i].Message = r.String(rep.Errors[i].Message)
	}
	for i := range rep.Validation.Failures {
		rep.Validation.Failures[i].Differences = differences(r, rep.Validation.Failures[i].Differences)
	}
	for i := range rep.Chaos.Faults {
		rep.Chaos.Faults[i].Detail = r.String(rep.Chaos.Faults[i].Detail)
	}
	for i := range rep.PerName {
		rep.PerName[i].Name = r.String(rep.PerName[i].Name)
	}
	for i := range rep.Histograms.PerName {
		rep.Histograms.PerName[i].Name = r.String(rep.Histograms.PerName[i].Name)
	}
	for i := range rep.Thresholds {
		rep.Thresholds[i].Detail = r.String(rep.Thresholds[i].Detail)
	}
	for i := range rep.Chaos.Survival {
		rep.Chaos.Survival[i].Notes = redactStrings(r, rep.Chaos.Survival[i].Notes)
	}
}

func redactStrings(r *tape.Redactor, ss []string) []string {
	var out []string // nil until one changes
	for i, s := range ss {
		if x := r.String(s); x != s {
			if out == nil {
				out = slices.Clone(ss)
			}
			out[i] = x
		}
	}
	if out == nil {
		return ss
	}
	return out
}

// differences redacts ds, copying the slice when a difference changes
// (the collector may share it).
func differences(r *tape.Redactor, ds []Difference) []Difference {
	var out []Difference
	for i, d := range ds {
		x := d
		x.Path, x.Expected, x.Actual = r.String(d.Path), r.Bytes(d.Expected), r.Bytes(d.Actual)
		if x.Path != d.Path || !sameBytes(x.Expected, d.Expected) || !sameBytes(x.Actual, d.Actual) {
			if out == nil {
				out = slices.Clone(ds)
			}
			out[i] = x
		}
	}
	if out == nil {
		return ds
	}
	return out
}

// sameBytes reports whether a and b are the same bytes in memory, as
// Bytes returns its argument when it redacts nothing.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
