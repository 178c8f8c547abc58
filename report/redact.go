package report

import (
	"slices"

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
	res.Out, res.Answer, res.Recorded = tape.Mask(res.Out), tape.Mask(res.Answer), tape.Mask(res.Recorded)
	res.Differences = MaskDifferences(res.Differences)
	if r == nil {
		return res
	}
	res.Err, res.Name = r.String(res.Err), r.String(res.Name)
	res.Differences = differences(r, res.Differences)
	res.Out, res.Answer, res.Recorded = r.Bytes(res.Out), r.Bytes(res.Answer), r.Bytes(res.Recorded)
	return res
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
