package testclient

import (
	"bytes"
	"fmt"
)

// Diff lists how transcript b differs from a, step by step: a step missing
// or extra, another step name, ok or skipped that differ, a result or an
// error that differs byte for byte. nil when they are the same. Nothing is
// dropped before comparing: see the package doc.
func Diff(a, b []Step) []string {
	var out []string
	for i := range max(len(a), len(b)) {
		switch {
		case i >= len(a):
			out = append(out, fmt.Sprintf("line %d: extra step %d %q", i+1, b[i].Client, b[i].Step))
			continue
		case i >= len(b):
			out = append(out, fmt.Sprintf("line %d: missing step %d %q", i+1, a[i].Client, a[i].Step))
			continue
		}
		x, y := a[i], b[i]
		where := fmt.Sprintf("line %d (client %d, %s)", i+1, x.Client, x.Step)
		switch {
		case x.Client != y.Client || x.Step != y.Step:
			out = append(out, fmt.Sprintf("line %d: got client %d %q, want client %d %q", i+1, y.Client, y.Step, x.Client, x.Step))
		case x.OK != y.OK:
			out = append(out, fmt.Sprintf("%s: got ok %v, want %v", where, y.OK, x.OK))
		case x.Skipped != y.Skipped:
			out = append(out, fmt.Sprintf("%s: got skipped %q, want %q", where, y.Skipped, x.Skipped))
		case !bytes.Equal(x.Result, y.Result):
			out = append(out, fmt.Sprintf("%s: got result %s, want %s", where, y.Result, x.Result))
		case !bytes.Equal(x.Error, y.Error):
			out = append(out, fmt.Sprintf("%s: got error %s, want %s", where, y.Error, x.Error))
		}
	}
	return out
}
