package compare

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"

	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/validator"
)

// Endpoint is one method and name (the tool, prompt or resource URI; ""
// for other methods) and how many of its answers were compared.
type Endpoint struct {
	Method string `json:"method"`
	Name   string `json:"name,omitempty"`
	Total  int    `json:"total"`
	// Differing counts the answers where primary and candidate differ
	// anywhere, Noisy those where primary and secondary do.
	Differing int `json:"differing"`
	Noisy     int `json:"noisy"`
}

// Path is one JSON path of one method and name's answers that differed
// between primary and candidate (raw) or between primary and secondary
// (noise), in the validator's syntax (result.structuredContent.lang);
// "$" is a whole answer, there in one run and missing in the other.
type Path struct {
	Method string `json:"method"`
	Name   string `json:"name,omitempty"`
	Path   string `json:"path"`
	Total  int    `json:"total"` // answers of the method and name compared
	Raw    int    `json:"raw"`   // of them, where primary and candidate differ at Path
	Noise  int    `json:"noise"` // where primary and secondary differ at Path
	// Relative and Absolute are the margins Diffy's rule measures, in
	// percent (see Judge).
	Relative float64 `json:"relative"`
	Absolute float64 `json:"absolute"`
	// Changed: Raw > Noise and both margins passed.
	Changed bool `json:"changed"`
	// Example is the first raw difference at Path, nil when there was
	// none (noise only).
	Example *Example `json:"example,omitempty"`
}

// MorePaths is the Path that stands for an answer's differences past the
// validator's MaxDifferences, as one: its example's Candidate is how many
// were left out.
const MorePaths = "…"

// Example is one difference between the primary's and the candidate's
// answer: where, and the two values (absent on the side that has none;
// a long one cut to an excerpt, as reports do).
type Example struct {
	Session   string          `json:"session"`
	Seq       int64           `json:"seq"`
	Primary   json.RawMessage `json:"primary,omitempty"`
	Candidate json.RawMessage `json:"candidate,omitempty"`
}

// Judge is Diffy's rule: a path differing in raw of total answers between
// primary and candidate, and in noise between primary and secondary,
// changed when raw > noise and
//
//	relative = |raw − noise| / (raw + noise) × 100 > relMargin
//	absolute = |raw − noise| / total × 100        > absMargin
//
// Margins are in percent. It returns both measures (0 for no answer).
func Judge(raw, noise, total int, relMargin, absMargin float64) (relative, absolute float64, changed bool) {
	delta := math.Abs(float64(raw - noise))
	if raw+noise > 0 {
		relative = delta / float64(raw+noise) * 100
	}
	if total > 0 {
		absolute = delta / float64(total) * 100
	}
	return relative, absolute, raw > noise && relative > relMargin && absolute > absMargin
}

// endpointKey is a method and a name.
type endpointKey struct{ method, name string }

// pathKey is a path of a method and name's answers.
type pathKey struct {
	endpointKey
	path string
}

// comparePaths pairs the answers of the three runs by session and seq
// and counts, per method, name and path, the raw differences (primary
// against candidate) and the noise (primary against secondary). Paths
// are not judged here. A pure function over the runs' answers.
func comparePaths(v *validator.Validator, primary, candidate, secondary *answers) ([]Endpoint, []Path) {
	endpoints := map[endpointKey]*Endpoint{}
	paths := map[pathKey]*Path{}
	at := func(k pathKey) *Path {
		p := paths[k]
		if p == nil {
			p = &Path{Method: k.method, Name: k.name, Path: k.path}
			paths[k] = p
		}
		return p
	}
	for _, k := range union(primary, candidate, secondary) {
		ap, ac, as := primary.byKey[k], candidate.byKey[k], secondary.byKey[k]
		ek := endpointKey{ap.method, ap.name}
		if ek.method == "" {
			ek = cmp.Or(endpointKey{ac.method, ac.name}, endpointKey{as.method, as.name})
		}
		e := endpoints[ek]
		if e == nil {
			e = &Endpoint{Method: ek.method, Name: ek.name}
			endpoints[ek] = e
		}
		e.Total++
		raw := differences(v, ap.msg, ac.msg)
		if len(raw) > 0 {
			e.Differing++
		}
		for _, d := range raw {
			p := at(pathKey{ek, d.Path})
			p.Raw++
			if p.Example == nil {
				p.Example = &Example{Session: k.Session, Seq: k.Seq, Primary: d.Expected, Candidate: d.Actual}
			}
		}
		noise := differences(v, ap.msg, as.msg)
		if len(noise) > 0 {
			e.Noisy++
		}
		for _, d := range noise {
			at(pathKey{ek, d.Path}).Noise++
		}
	}
	outE := make([]Endpoint, 0, len(endpoints))
	for _, e := range endpoints {
		outE = append(outE, *e)
	}
	slices.SortFunc(outE, func(x, y Endpoint) int {
		return cmp.Or(cmp.Compare(x.Method, y.Method), cmp.Compare(x.Name, y.Name))
	})
	outP := make([]Path, 0, len(paths))
	for k, p := range paths {
		p.Total = endpoints[k.endpointKey].Total
		outP = append(outP, *p)
	}
	slices.SortFunc(outP, func(x, y Path) int {
		return cmp.Or(cmp.Compare(x.Method, y.Method), cmp.Compare(x.Name, y.Name), cmp.Compare(x.Path, y.Path))
	})
	return outE, outP
}

// union is the keys of the runs' answers: the primary's in the order
// they came, then those only the others have.
func union(runs ...*answers) []key {
	seen := map[key]bool{}
	var out []key
	for _, r := range runs {
		for _, k := range r.order {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// differences are the paths where answer a and b differ, each once, with
// the values of the first difference there (cut as reports cut them). An
// answer missing on one side differs at "$"; two answers that are not
// JSON differ at "$" when their bytes do.
func differences(v *validator.Validator, a, b []byte) []report.Difference {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil || b == nil:
		return report.BoundDifferences([]report.Difference{{Path: "$", Expected: rawOrNil(a), Actual: rawOrNil(b), Kind: "missing"}})
	}
	diffs, err := v.Compare(a, b)
	if err != nil {
		if string(a) == string(b) {
			return nil
		}
		return report.BoundDifferences([]report.Difference{{Path: "$", Expected: a, Actual: b, Kind: validator.DiffChanged}})
	}
	seen := map[string]bool{}
	var out []report.Difference
	for _, d := range diffs {
		path := d.Path
		if d.Kind == validator.DiffTruncated {
			path = MorePaths // the differences past validator.MaxDifferences, as one
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		d.Path = path
		out = append(out, report.Difference(d))
	}
	return report.BoundDifferences(out)
}

func rawOrNil(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return b
}
